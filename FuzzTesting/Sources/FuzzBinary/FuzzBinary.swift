import FuzzSupport

/// libFuzzer entry point: the binary property-list reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinary(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzInput.readPropertyList(FuzzInput.data(start, count), format: .binary)
    return 0
}
