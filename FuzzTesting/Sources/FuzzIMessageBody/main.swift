import FuzzSupport
@_spi(Fuzzing) import KeyedArchive

/// libFuzzer entry point: the two readers of an iMessage body. Wherever the one-pass reader
/// answers, the general reader must give the same attributed string; either way
/// `IMessageBody(attributedBody:)` gives a body or a package error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIMessageBody(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    if let disagreement = IMessageBodyReadingPaths.disagreement(in: data) {
        FuzzInput.fail("iMessage body readers differ:\n\(disagreement)")
    }
    do {
        let body = try IMessageBody(attributedBody: data)
        for run in body.runs { _ = (run.text.utf8.count, run.messagePart, run.link) }
    } catch {
        FuzzInput.requirePackageError(error, "IMessageBody(attributedBody:)")
    }
    do {
        _ = try IMessageBodyReadingPaths.generalReading(data).description.utf8.count
    } catch {
        FuzzInput.requirePackageError(error, "the general body reader")
    }
    return 0
}
