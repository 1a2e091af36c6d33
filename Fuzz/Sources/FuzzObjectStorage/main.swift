import ServerParsers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ServerParsers.parseObjectStorage(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
