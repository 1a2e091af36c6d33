import ServerParsers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ServerParsers.parseRequests(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
