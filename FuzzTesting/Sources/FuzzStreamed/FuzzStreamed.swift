import FuzzSupport
@_spi(Fuzzing) import KeyedArchive

/// libFuzzer entry point: the conversions that build no tree (`keyed-archive -convert` and
/// `-p` of binary, XML, OpenStep and JSON input). Each that succeeds must write what
/// reading the value and writing it writes, byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreamed(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    if let disagreement = StreamedConversionPaths.disagreement(in: FuzzInput.data(start, count)) {
        FuzzInput.fail("a streamed conversion differs from the tree's:\n\(disagreement)")
    }
    return 0
}
