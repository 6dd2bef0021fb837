import FuzzSupport

/// libFuzzer entry point: the XML property-list reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzInput.readPropertyList(FuzzInput.data(start, count), format: .xml)
    return 0
}
