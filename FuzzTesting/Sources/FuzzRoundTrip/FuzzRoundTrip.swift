import Foundation
import FuzzSupport
import KeyedArchive

/// libFuzzer entry point: any property list that reads must survive writing and reading
/// back, in binary exactly, in XML up to what XML cannot carry (date fractions).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    let value: PropertyList
    do {
        value = try PropertyList(from: data)
    } catch {
        FuzzInput.requirePackageError(error, "reading")
        return 0
    }
    RoundTrip.check(value, through: .binary)
    RoundTrip.check(value, through: .xml)
    return 0
}
