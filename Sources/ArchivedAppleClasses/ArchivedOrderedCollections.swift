#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ordered set as Foundation's `NSOrderedSet` (or `NSMutableOrderedSet`) archives it:
/// its elements in order under `NS.object.0`, `NS.object.1`, ….
///
/// ```swift
/// let set = ArchivedOrderedSet(["valgeir", "nico", "puzzle"])
/// let data = try KeyedArchiver.archivedData(withRootObject: set, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedOrderedSet<String>.self, from: data)
/// print(copy?.elements ?? [])   // ["valgeir", "nico", "puzzle"]
/// ```
public struct ArchivedOrderedSet<Element: KeyedCoding & Hashable>: SecureKeyedCoding, Hashable,
    CustomStringConvertible
{
    /// The elements in order, each once.
    public private(set) var elements: [Element]
    /// Whether the set is archived as `NSMutableOrderedSet`.
    public var isMutable: Bool

    /// Creates an ordered set of `elements`, dropping repeats after the first.
    ///
    /// - Parameters:
    ///   - elements: The elements.
    ///   - isMutable: Whether to archive it as `NSMutableOrderedSet`.
    public init<S: Sequence<Element>>(_ elements: S, isMutable: Bool = false) {
        var seen = Set<Element>()
        self.elements = elements.filter { seen.insert($0).inserted }
        self.isMutable = isMutable
    }

    /// `NSOrderedSet`; a mutable set is written as `NSMutableOrderedSet`.
    public static var archivedClassName: String { CataloguedClass.orderedSet.name }

    /// The elements in order.
    public var description: String { "\(elements)" }

    /// Writes `NS.object.0`, `NS.object.1`, ….
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        for (position, element) in elements.enumerated() {
            coder.encode(element, forKey: "NS.object.\(position)")
        }
    }

    /// Reads an `NSOrderedSet` or `NSMutableOrderedSet`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when an element is not an `Element`, or
    ///   `invalidArchive` when the set holds an element twice.
    public init(coder: KeyedUnarchiver) throws {
        isMutable = coder.currentClassName == CataloguedClass.mutableOrderedSet.name
        let elements = try coder.decodeElements(of: Element.self)
        guard Set(elements).count == elements.count else {
            throw coder.failure(.invalidArchive, "the ordered set holds an element twice")
        }
        self.elements = elements
    }
}

extension ArchivedOrderedSet: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .orderedSet) }
    package var archivedClassChain: [String] {
        (isMutable ? CataloguedClass.mutableOrderedSet : .orderedSet).chain
    }
}

extension ArchivedOrderedSet: Sendable where Element: Sendable {}

/// A counted set as Foundation's `NSCountedSet` archives it: each distinct element with
/// how many times it was added (`NS.count`, `NS.object0`…, `NS.count0`…).
///
/// ```swift
/// let set = ArchivedCountedSet([1: 5, 2: 1])
/// print(set.count(of: 1))   // 5
/// ```
public struct ArchivedCountedSet<Element: KeyedCoding & Hashable>: SecureKeyedCoding, Hashable,
    CustomStringConvertible
{
    /// How many times each element was added (every count at least 1).
    public var counts: [Element: Int]
    /// The order the elements were read in, to write them back in it; not part of equality.
    private var order: StoredOrder<Element>

    /// Creates a counted set.
    ///
    /// - Parameter counts: Each element's count; counts below 1 are dropped.
    public init(_ counts: [Element: Int] = [:]) {
        self.counts = counts.filter { $0.value > 0 }
        self.order = StoredOrder()
    }

    /// `NSCountedSet`.
    public static var archivedClassName: String { CataloguedClass.countedSet.name }

    /// `NSMutableSet`, `NSSet`: the chain Apple writes.
    public static var archivedSuperclassNames: [String]? {
        Array(CataloguedClass.countedSet.chain.dropFirst())
    }

    /// How many times `element` was added.
    ///
    /// - Parameter element: An element.
    /// - Returns: Its count, 0 when absent.
    public func count(of element: Element) -> Int { counts[element] ?? 0 }

    /// The elements with their counts.
    public var description: String {
        "[" + counts.map { "\($0.key) ×\($0.value)" }.sorted().joined(separator: ", ") + "]"
    }

    /// Writes `NS.count`, then each element and its count.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(counts.count, forKey: "NS.count")
        var elements = order.elements.filter { counts[$0] != nil }
        if elements.count != counts.count {
            let known = Set(elements)
            elements += counts.keys.filter { !known.contains($0) }
        }
        for (position, element) in elements.enumerated() {
            coder.encode(element, forKey: "NS.object\(position)")
            coder.encode(counts[element] ?? 1, forKey: "NS.count\(position)")
        }
    }

    /// Reads an `NSCountedSet`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when an element is not an `Element`, or
    ///   `invalidArchive` when a count is missing or not positive.
    public init(coder: KeyedUnarchiver) throws {
        let elements = try coder.decodeElements(of: Element.self)
        let stored = try coder.countedSetCounts(elements.count)
        var counts: [Element: Int] = [:]
        for (position, element) in elements.enumerated() {
            // An element archived twice adds its counts, which the archive may make overflow.
            let (sum, overflow) = counts[element, default: 0].addingReportingOverflow(
                stored.isEmpty ? 1 : stored[position])
            guard !overflow else {
                throw coder.failure(
                    .invalidArchive, "the counts of element NS.object\(position) add up to more than Int.max")
            }
            counts[element] = sum
        }
        self.counts = counts
        self.order = StoredOrder(elements: elements)
    }
}

/// An order kept only to write values back as they were read; ignored by equality.
struct StoredOrder<Element: Hashable>: Hashable {
    var elements: [Element] = []
    static func == (lhs: StoredOrder, rhs: StoredOrder) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

extension StoredOrder: Sendable where Element: Sendable {}

extension ArchivedCountedSet: ArchiveStandardType {
    package static var acceptedClassNames: [String] { [CataloguedClass.countedSet.name] }
}

extension ArchivedCountedSet: Sendable where Element: Sendable {}
