import FuzzSupport

/// libFuzzer entry point: the OpenStep (old-style text) property-list reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenStep(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzInput.readPropertyList(FuzzInput.data(start, count), format: .openStep)
    return 0
}
