import FuzzSupport
@_spi(Fuzzing) import KeyedArchive

/// libFuzzer entry point: the XML property-list reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    FuzzInput.readPropertyList(data, format: .xml)
    // The quick and general readings, into a tree and into a binary property list, agree.
    if let disagreement = XMLReadingPaths.disagreement(in: data) {
        FuzzInput.fail("XML readings differ:\n\(disagreement)")
    }
    return 0
}
