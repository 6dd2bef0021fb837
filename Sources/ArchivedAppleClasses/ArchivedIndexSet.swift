#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Unsigned integers written in 7-bit groups, least significant first, the high bit set
/// on every byte but the last: how `NSIndexSet`, `NSIndexPath` and `NSAttributedString`
/// pack their numbers into data.
enum CompactIntegers {
    static func append(_ value: Int, to bytes: inout [UInt8]) {
        AttributeRunLengths.append(value, to: &bytes)
    }

    static func data(_ values: [Int]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count)
        for value in values { append(value, to: &bytes) }
        return Data(bytes)
    }

    /// The integers of `bytes`, or `nil` when one is too large for `Int` or cut short.
    /// At most one integer per byte: the result is bounded by the input.
    static func parse(_ bytes: Data) -> [Int]? {
        var values: [Int] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            guard shift < 63 || (shift == 63 && byte & 0x7E == 0) else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            guard value <= UInt64(Int.max) else { return nil }
            values.append(Int(value))
            value = 0
            shift = 0
        }
        return shift == 0 ? values : nil
    }
}

/// A set of non-negative integers stored as ranges, as Foundation's `NSIndexSet` (or
/// `NSMutableIndexSet`) archives it.
///
/// ```swift
/// let set = ArchivedIndexSet(ranges: [0..<50, 100..<150])
/// let data = try KeyedArchiver.archivedData(withRootObject: set, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexSet.self, from: data)
/// print(copy?.description ?? "")   // [0..<50, 100..<150]
/// ```
///
/// Apple stores `NSRangeCount`, then for one range `NSLocation` and `NSLength`, for more
/// `NSRangeData` (location, length pairs as variable-length integers). Foundation's
/// `IndexSet` is not part of FoundationEssentials, so this value holds the ranges itself.
public struct ArchivedIndexSet: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The ranges in the order stored (Apple's are sorted and apart).
    public var ranges: [Range<Int>]
    /// Whether the set is archived as `NSMutableIndexSet`.
    public var isMutable: Bool

    /// Creates an index set.
    ///
    /// - Parameters:
    ///   - ranges: The ranges, sorted and apart.
    ///   - isMutable: Whether to archive it as `NSMutableIndexSet`.
    public init(ranges: [Range<Int>] = [], isMutable: Bool = false) {
        self.ranges = ranges.filter { !$0.isEmpty }
        self.isMutable = isMutable
    }

    /// Creates an index set of `indices`, merged into ranges.
    ///
    /// - Parameter indices: The indices.
    public init<S: Sequence<Int>>(indices: S) {
        var ranges: [Range<Int>] = []
        for index in indices.sorted() where index >= 0 && index < Int.max {
            if let last = ranges.last, last.upperBound >= index {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, index + 1)
            } else {
                ranges.append(index..<(index + 1))
            }
        }
        self.init(ranges: ranges)
    }

    /// `NSIndexSet`; a mutable set is written as `NSMutableIndexSet`.
    public static var archivedClassName: String { CataloguedClass.indexSet.name }

    /// The number of indices.
    public var count: Int { ranges.reduce(0) { $0 &+ $1.count } }

    /// Whether `index` is in the set.
    ///
    /// - Parameter index: An index.
    /// - Returns: `true` if a range contains it.
    /// - Complexity: O(*n*) in the number of ranges.
    public func contains(_ index: Int) -> Bool {
        ranges.contains { $0.contains(index) }
    }

    /// The ranges: `[0..<50, 100..<150]`.
    public var description: String {
        "[" + ranges.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ") + "]"
    }

    /// Writes `NSRangeCount` and the ranges.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(ranges.count, forKey: "NSRangeCount")
        if ranges.count == 1 {
            coder.encode(ranges[0].count, forKey: "NSLength")
            coder.encode(ranges[0].lowerBound, forKey: "NSLocation")
        } else if ranges.count > 1 {
            let pairs = ranges.flatMap { [$0.lowerBound, $0.count] }
            coder.encode(ArchivedMutableData(bytes: CompactIntegers.data(pairs)), forKey: "NSRangeData")
        }
    }

    /// Reads an `NSIndexSet` or `NSMutableIndexSet`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the count and the
    ///   ranges disagree, a range overflows, or `NSRangeData` is malformed.
    public init(coder: KeyedUnarchiver) throws {
        isMutable = coder.currentClassName == CataloguedClass.mutableIndexSet.name
        let count = try coder.decodeInteger(forKey: "NSRangeCount")
        var pairs: [Int]
        if count == 1, coder.containsValue(forKey: "NSLocation") {
            pairs = [
                try coder.decodeInteger(forKey: "NSLocation"), try coder.decodeInteger(forKey: "NSLength"),
            ]
        } else if let bytes = try coder.decodeObject(of: Data.self, forKey: "NSRangeData") {
            guard let values = CompactIntegers.parse(bytes) else {
                throw coder.failure(.invalidArchive, "NSRangeData is not location and length pairs")
            }
            pairs = values
        } else {
            pairs = []
        }
        guard pairs.count == count * 2 else {
            throw coder.failure(
                .invalidArchive, "NSRangeCount is \(count) but the index set stores \(pairs.count / 2) ranges"
            )
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(count)
        var position = 0
        while position + 1 < pairs.count {
            let (location, length) = (pairs[position], pairs[position + 1])
            let (end, overflow) = location.addingReportingOverflow(length)
            guard location >= 0, length >= 0, !overflow else {
                throw coder.failure(
                    .invalidArchive, "index set range \(location), \(length) is out of bounds")
            }
            ranges.append(location..<end)
            position += 2
        }
        self.ranges = ranges
    }
}

extension ArchivedIndexSet: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .indexSet) }
    package var archivedClassChain: [String] {
        isMutable ? CataloguedClass.mutableIndexSet.chain : CataloguedClass.indexSet.chain
    }
}

/// `IndexPath` archives as Foundation's `NSIndexPath`: `NSIndexPathLength`, then one index
/// as `NSIndexPathValue` or several as `NSIndexPathData` (variable-length integers).
extension IndexPath: SecureKeyedCoding {
    /// `NSIndexPath`.
    public static var archivedClassName: String { CataloguedClass.indexPath.name }

    /// Writes the indices in Apple's layout.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(count, forKey: "NSIndexPathLength")
        if count == 1, let only = first {
            coder.encode(only, forKey: "NSIndexPathValue")
        } else if count > 1 {
            coder.encode(
                ArchivedMutableData(bytes: CompactIntegers.data(Array(self))), forKey: "NSIndexPathData")
        }
    }

    /// Reads an `NSIndexPath`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the length and the
    ///   indices disagree or `NSIndexPathData` is malformed.
    public init(coder: KeyedUnarchiver) throws {
        let length = try coder.decodeInteger(forKey: "NSIndexPathLength")
        var indices: [Int] = []
        if length == 1, coder.containsValue(forKey: "NSIndexPathValue") {
            indices = [try coder.decodeInteger(forKey: "NSIndexPathValue")]
        } else if let bytes = try coder.decodeObject(of: Data.self, forKey: "NSIndexPathData") {
            guard let values = CompactIntegers.parse(bytes) else {
                throw coder.failure(.invalidArchive, "NSIndexPathData is not a list of indices")
            }
            indices = values
        }
        guard indices.count == length else {
            throw coder.failure(
                .invalidArchive,
                "NSIndexPathLength is \(length) but the index path stores \(indices.count) indices")
        }
        self.init(indexes: indices)
    }
}

extension IndexPath: ArchiveStandardType {
    package static var acceptedClassNames: [String] { [CataloguedClass.indexPath.name] }
}
