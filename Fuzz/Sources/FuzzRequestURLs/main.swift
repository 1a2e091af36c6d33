import ServerParsers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ServerParsers.parseTarget(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
