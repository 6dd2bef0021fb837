#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An attributed string as Foundation's `NSAttributedString` (or
/// `NSMutableAttributedString`) archives it: the text and its runs of attributes.
///
/// ```swift
/// let text = ArchivedAttributedString(
///     "Hello, world",
///     runs: [
///         .init(range: 0..<5, attributes: ["NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12))]),
///         .init(range: 5..<12, attributes: ["NSLink": .url(URL(string: "https://swift.org")!)]),
///     ])
/// let data = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data)
/// print(copy?.runs.count ?? 0)   // 2
/// ```
///
/// Apple stores the text under `NSString` (an `NSMutableString` object for a mutable
/// string) and the attributes in one of two forms: a single dictionary under
/// `NSAttributes` when one run covers the whole text, or an array of dictionaries under
/// `NSAttributes` with `NSAttributeInfo`, data holding (length, dictionary index) pairs as
/// variable-length integers. Both are read. The run-length form is written, since every
/// reader accepts it (swift-corelibs-foundation's unarchiver reads no other), except that
/// a string read from an archive is written back in the shape it was read in (the same
/// form, the same dictionaries in the same order) while its runs are unchanged.
///
/// Ranges are in UTF-16 code units, as Apple counts them. Attribute values are typed
/// where KeyedArchive knows their class (see ``ArchivedAttributeValue``) and kept as
/// generic graphs otherwise.
public struct ArchivedAttributedString: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// A range of the text and the attributes that apply to it.
    public struct Run: Hashable, Sendable {
        /// The range, in UTF-16 code units of ``ArchivedAttributedString/string``.
        public var range: Range<Int>
        /// The attributes by name (`NSFont`, `NSColor`, `NSLink`, `NSParagraphStyle`, …).
        public var attributes: [String: ArchivedAttributeValue]

        /// Creates a run.
        ///
        /// - Parameters:
        ///   - range: The range in UTF-16 code units.
        ///   - attributes: The attributes.
        public init(range: Range<Int>, attributes: [String: ArchivedAttributeValue]) {
            self.range = range
            self.attributes = attributes
        }
    }

    /// The text.
    public var string: String
    /// The attribute runs in order; together they cover the text, or are empty for a
    /// string archived without attributes.
    public var runs: [Run]
    /// Whether the string is archived as `NSMutableAttributedString`.
    public var isMutable: Bool
    /// How the runs were stored, to write them back the same way; not part of equality.
    private var layout: StoredAttributeLayout

    /// Creates an attributed string.
    ///
    /// - Parameters:
    ///   - string: The text.
    ///   - runs: The runs, in UTF-16 code units; by default none.
    ///   - isMutable: Whether to archive it as `NSMutableAttributedString`.
    public init(_ string: String, runs: [Run] = [], isMutable: Bool = false) {
        self.string = string
        self.runs = runs
        self.isMutable = isMutable
        self.layout = StoredAttributeLayout()
    }

    /// Creates an attributed string whose whole text has `attributes`.
    ///
    /// - Parameters:
    ///   - string: The text.
    ///   - attributes: The attributes of every character.
    public init(_ string: String, attributes: [String: ArchivedAttributeValue]) {
        self.init(string, runs: [Run(range: 0..<string.utf16.count, attributes: attributes)])
    }

    /// `NSAttributedString`; a mutable string is written as `NSMutableAttributedString`.
    public static var archivedClassName: String { CataloguedClass.attributedString.name }

    /// The text of `range` (UTF-16 code units), or `nil` when it is out of bounds or
    /// splits a surrogate pair.
    ///
    /// - Parameter range: A range such as a run's.
    /// - Returns: The text.
    public func text(in range: Range<Int>) -> String? {
        let utf16 = string.utf16
        guard range.lowerBound >= 0, range.upperBound <= utf16.count else { return nil }
        let start = utf16.index(utf16.startIndex, offsetBy: range.lowerBound)
        let end = utf16.index(start, offsetBy: range.count)
        guard let lower = start.samePosition(in: string.unicodeScalars),
            let upper = end.samePosition(in: string.unicodeScalars)
        else { return nil }
        return String(string.unicodeScalars[lower..<upper])
    }

    /// The quoted text, then one line per run: `0..<5 "Hello" NSFont = Helvetica 12 pt`.
    public var description: String {
        var lines = [DisplayText.quoted(string)]
        for run in runs {
            let text = text(in: run.range).map { DisplayText.quoted($0, maximumScalars: 40) } ?? ""
            let attributes = run.attributes.keys.sorted().compactMap { key in
                run.attributes[key].map { "\(key) = \($0)" }
            }
            let head = "  \(run.range.lowerBound)..<\(run.range.upperBound) \(text)"
            lines.append(attributes.isEmpty ? head : "\(head) \(attributes.joined(separator: "; "))")
        }
        return lines.joined(separator: "\n")
    }

    /// Writes `NSString` and the attributes: in the run-length form, or in the
    /// single-dictionary form if the string was read in that form and one run still
    /// covers the text.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        if isMutable {
            coder.encode(ArchivedMutableString(string: string), forKey: "NSString")
        } else {
            coder.encode(string, forKey: "NSString")
        }
        guard !runs.isEmpty else { return }
        let length = string.utf16.count
        if runs.count == 1, runs[0].range == 0..<length, layout.usesSingleDictionary {
            let order = layout.table.first?.keyOrder ?? []
            coder.encode(
                ArchivedAttributeDictionary(attributes: runs[0].attributes, keyOrder: order),
                forKey: "NSAttributes")
            return
        }
        let (table, indices) = attributeTable()
        coder.encode(
            ArchivedMutableArray(dictionaries: table.map(ArchivedAttributeDictionary.init)),
            forKey: "NSAttributes")
        var info: [UInt8] = []
        for (run, index) in zip(runs, indices) {
            AttributeRunLengths.append(max(0, run.range.count), to: &info)
            AttributeRunLengths.append(index, to: &info)
        }
        coder.encode(ArchivedMutableData(bytes: Data(info)), forKey: "NSAttributeInfo")
    }

    /// The attribute dictionaries to write and each run's index among them: those read, if
    /// they still describe the runs, else one per distinct dictionary in order of use.
    private func attributeTable() -> (table: [AttributeDictionaryValue], indices: [Int]) {
        if layout.runIndices.count == runs.count,
            zip(runs, layout.runIndices).allSatisfy({ run, index in
                layout.table.indices.contains(index) && layout.table[index].attributes == run.attributes
            })
        {
            return (layout.table, layout.runIndices)
        }
        var table: [[String: ArchivedAttributeValue]] = []
        var indices: [Int] = []
        var positions: [[String: ArchivedAttributeValue]: Int] = [:]
        for run in runs {
            if let known = positions[run.attributes] {
                indices.append(known)
            } else {
                positions[run.attributes] = table.count
                indices.append(table.count)
                table.append(run.attributes)
            }
        }
        return (table.map { AttributeDictionaryValue(attributes: $0, keyOrder: []) }, indices)
    }

    /// Reads an `NSAttributedString` or `NSMutableAttributedString` in either form.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NSString` is
    ///   missing, `NSAttributeInfo` is malformed, names a dictionary that does not exist, or
    ///   covers more than the text; `typeMismatch` when a field has the wrong type.
    public init(coder: KeyedUnarchiver) throws {
        AttributeDictionaryValue.cacheFromSecondDecode(in: coder)
        isMutable = coder.currentClassName != CataloguedClass.attributedString.name
        guard let text = try coder.decodeObject(of: String.self, forKey: "NSString") else {
            throw coder.missingField("NSString", of: "NSAttributedString")
        }
        string = text
        layout = StoredAttributeLayout()
        runs = []
        let length = text.utf16.count
        if let info = try coder.decodeObject(of: Data.self, forKey: "NSAttributeInfo") {
            let dictionaries =
                try coder.decodeArrayOfObjects(
                    ofClass: AttributeDictionaryValue.self, forKey: "NSAttributes") ?? []
            let pairs = try AttributeRunLengths.parse(
                info, dictionaryCount: dictionaries.count, length: length
            )
            .mapError(coder)
            var start = 0
            for (runLength, index) in pairs {
                runs.append(
                    Run(range: start..<(start + runLength), attributes: dictionaries[index].attributes))
                layout.runIndices.append(index)
                start += runLength
            }
            // The usual table, the one encode(with:) writes for these runs, need not be kept.
            if !StoredAttributeLayout.isCanonical(dictionaries, runIndices: layout.runIndices) {
                layout.table = dictionaries
            } else {
                layout.runIndices = []
            }
        } else if let dictionary = try coder.decodeObject(
            of: AttributeDictionaryValue.self, forKey: "NSAttributes")
        {
            runs = [Run(range: 0..<length, attributes: dictionary.attributes)]
            layout.table = [dictionary]
            layout.usesSingleDictionary = true
        }
    }
}

extension ArchivedAttributedString: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .attributedString) }
    package var archivedClassChain: [String] {
        isMutable ? CataloguedClass.mutableAttributedString.chain : CataloguedClass.attributedString.chain
    }
}

/// How an attributed string's runs were archived, ignored by equality.
struct StoredAttributeLayout: Hashable, Sendable {
    /// The dictionaries as read (attributes and key order), in order: the run-length
    /// form's table, or the single dictionary.
    var table: [AttributeDictionaryValue] = []
    /// Each run's index into ``table``.
    var runIndices: [Int] = []
    /// Whether the runs were stored as one dictionary, without `NSAttributeInfo`.
    var usesSingleDictionary = false

    /// The most dictionaries ``isCanonical(_:runIndices:)`` compares pairwise.
    static let largestComparedTable = 8

    /// Whether `table` and `runIndices` are what ``ArchivedAttributedString`` writes for
    /// their runs when nothing is kept: the dictionaries numbered in order of first use,
    /// no two equal, each with its keys in sorted order (or one key). Such a layout need
    /// not be stored (two arrays fewer per string read). A table of more than
    /// ``largestComparedTable`` dictionaries is not compared (it is kept), so the check
    /// stays linear.
    static func isCanonical(_ table: [AttributeDictionaryValue], runIndices: [Int]) -> Bool {
        guard table.count <= largestComparedTable else { return false }
        var next = 0
        for index in runIndices {
            if index == next {
                next += 1
            } else if index > next {
                return false
            }
        }
        guard next == table.count else { return false }
        for (position, dictionary) in table.enumerated() {
            if !dictionary.keyOrder.isEmpty, dictionary.keyOrder != dictionary.attributes.keys.sorted() {
                return false
            }
            for other in table[..<position] where other.attributes == dictionary.attributes { return false }
        }
        return true
    }

    static func == (lhs: StoredAttributeLayout, rhs: StoredAttributeLayout) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

/// `NSAttributeInfo`: (run length, dictionary index) pairs, each an unsigned integer in
/// 7-bit groups, least significant first, the high bit set on all but the last byte.
enum AttributeRunLengths {
    struct Problem: Error {
        let message: String
    }

    static func append(_ value: Int, to bytes: inout [UInt8]) {
        var remaining = UInt64(max(0, value))
        while remaining >= 0x80 {
            bytes.append(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    /// The pairs of `info`, checked: every index names one of `dictionaryCount`
    /// dictionaries, and the runs cover at most `length` code units.
    static func parse(_ info: Data, dictionaryCount: Int, length: Int) -> Result<[(Int, Int)], Problem> {
        var pairs: [(Int, Int)] = []
        var numbers: [Int] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var covered = 0
        for byte in info {
            guard shift < 63 else {
                return .failure(Problem(message: "NSAttributeInfo holds an integer too large"))
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            guard value <= UInt64(Int.max) else {
                return .failure(Problem(message: "NSAttributeInfo holds an integer too large"))
            }
            numbers.append(Int(value))
            value = 0
            shift = 0
            if numbers.count == 2 {
                let (runLength, index) = (numbers[0], numbers[1])
                numbers.removeAll(keepingCapacity: true)
                guard index < dictionaryCount else {
                    return .failure(
                        Problem(
                            message:
                                "NSAttributeInfo names attribute dictionary \(index) of \(dictionaryCount)"))
                }
                guard runLength <= length - covered else {
                    return .failure(
                        Problem(
                            message:
                                "NSAttributeInfo runs cover more than the \(length) UTF-16 units of the text")
                    )
                }
                covered += runLength
                pairs.append((runLength, index))
            }
        }
        guard shift == 0, numbers.isEmpty else {
            return .failure(Problem(message: "NSAttributeInfo ends in the middle of a run"))
        }
        return .success(pairs)
    }
}

extension Result where Failure == AttributeRunLengths.Problem {
    func mapError(_ coder: KeyedUnarchiver) throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let problem): throw coder.failure(.invalidArchive, problem.message)
        }
    }
}

/// An attribute dictionary (`NSDictionary` of names to values) as read: a value (two
/// references), so that reading one allocates nothing beyond its dictionary and is not
/// kept by the unarchiver. Written through ``ArchivedAttributeDictionary``.
struct AttributeDictionaryValue: ArchiveStandardType, Sendable {
    /// Archives do not share attribute dictionaries nor their table: the unarchiver caches
    /// them from their second decode on (as it does URLs), which saves an allocation each.
    static func cacheFromSecondDecode(in coder: KeyedUnarchiver) {
        coder.cacheFromSecondDecode(AttributeDictionaryValue.self)
        coder.cacheFromSecondDecode([AttributeDictionaryValue].self)
    }

    let attributes: [String: ArchivedAttributeValue]
    /// The keys in archive order.
    let keyOrder: [String]

    static var archivedClassName: String { CataloguedClass.dictionary.name }
    static var archivedSuperclassNames: [String]? { [] }
    static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .dictionary) }

    init(attributes: [String: ArchivedAttributeValue], keyOrder: [String]) {
        self.attributes = attributes
        self.keyOrder = keyOrder
    }

    func encode(with coder: KeyedArchiver) {
        var keys = keyOrder.filter { attributes[$0] != nil }
        if keys.count != attributes.count {
            keys = attributes.keys.sorted()
        }
        coder.encodeReferences(keys, forKey: "NS.keys")
        coder.encodeAttributeReferences(keys.compactMap { attributes[$0] }, forKey: "NS.objects")
    }

    init(coder: KeyedUnarchiver) throws {
        let (keys, values) = try coder.attributeEntryIndices()
        var attributes: [String: ArchivedAttributeValue] = [:]
        var order: [String] = []
        for (keyUID, valueUID) in zip(keys, values) {
            let name = try coder.decodeEntry(keyUID, as: String.self)
            coder.enterPath(.key(name))
            defer { coder.leavePath() }
            if attributes.updateValue(try coder.attributeValue(referencedBy: valueUID), forKey: name) == nil,
                keys.count > 1
            {
                order.append(name)
            }
        }
        self.attributes = attributes
        // One key needs no order (and no array).
        self.keyOrder = order
    }
}

/// An attribute dictionary to write: a class, so that the archiver writes each as its own
/// object every time (equal values would be shared), as Apple writes one per run-table entry.
final class ArchivedAttributeDictionary: ArchiveStandardType, Sendable {
    let value: AttributeDictionaryValue
    var attributes: [String: ArchivedAttributeValue] { value.attributes }

    static var archivedClassName: String { CataloguedClass.dictionary.name }
    static var archivedSuperclassNames: [String]? { [] }
    static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .dictionary) }

    init(_ value: AttributeDictionaryValue) {
        self.value = value
    }

    convenience init(attributes: [String: ArchivedAttributeValue], keyOrder: [String]) {
        self.init(AttributeDictionaryValue(attributes: attributes, keyOrder: keyOrder))
    }

    func encode(with coder: KeyedArchiver) {
        value.encode(with: coder)
    }

    init(coder: KeyedUnarchiver) throws {
        value = try AttributeDictionaryValue(coder: coder)
    }
}

extension KeyedUnarchiver {
    /// The key and value references of the current dictionary object: read straight from
    /// a binary archive in the usual layout (attribute dictionaries are many and small),
    /// else as ``entryIndices()`` reads them.
    func attributeEntryIndices() throws -> (keys: [Int], values: [Int]) {
        if let keys = try binaryElementIndices(forKey: "NS.keys"), let values = try binaryElementIndices(),
            keys.count == values.count
        {
            return (keys, values)
        }
        return try entryIndices()
    }

    /// The number of fields of the current object, `$class` included.
    var currentFieldCount: Int {
        let container = currentContainer
        if let fields = container.binaryFields { return fields.count }
        return container.parsedFields?.count ?? 0
    }

    /// ``otherFields(excluding:)``, without reading the object's fields when the `found`
    /// known fields (and `$class`) are all it has: the common case, made cheap.
    func otherFields(excluding known: Set<String>, found: Int) throws -> [String: ArchivedAttributeValue] {
        if currentFieldCount == found + 1 { return [:] }
        return try otherFields(excluding: known)
    }
}

/// An `NSMutableString` object (`NS.string` inline).
package struct ArchivedMutableString: SecureKeyedCoding {
    package let string: String
    package static var archivedClassName: String { CataloguedClass.mutableString.name }
    package static var archivedSuperclassNames: [String]? { [CataloguedClass.string.name] }

    package init(string: String) {
        self.string = string
    }

    package func encode(with coder: KeyedArchiver) {
        coder.encodeInlineString(string, forKey: "NS.string")
    }

    package init(coder: KeyedUnarchiver) throws {
        string = try String(coder: coder)
    }
}

/// An `NSMutableData` object (`NS.data` inline).
package struct ArchivedMutableData: SecureKeyedCoding {
    package let bytes: Data
    package static var archivedClassName: String { CataloguedClass.mutableData.name }
    package static var archivedSuperclassNames: [String]? { [CataloguedClass.data.name] }

    package init(bytes: Data) {
        self.bytes = bytes
    }

    package func encode(with coder: KeyedArchiver) {
        coder.encodeBytes(bytes, forKey: "NS.data")
    }

    package init(coder: KeyedUnarchiver) throws {
        bytes = try Data(coder: coder)
    }
}

/// An `NSMutableArray` of attribute dictionaries (the run-length form's table).
struct ArchivedMutableArray: SecureKeyedCoding {
    let dictionaries: [ArchivedAttributeDictionary]
    static var archivedClassName: String { CataloguedClass.mutableArray.name }
    static var archivedSuperclassNames: [String]? { [CataloguedClass.array.name] }

    init(dictionaries: [ArchivedAttributeDictionary]) {
        self.dictionaries = dictionaries
    }

    func encode(with coder: KeyedArchiver) {
        coder.encodeElements(dictionaries, forKey: "NS.objects")
    }

    init(coder: KeyedUnarchiver) throws {
        AttributeDictionaryValue.cacheFromSecondDecode(in: coder)
        dictionaries = try coder.decodeElements(of: AttributeDictionaryValue.self).map(
            ArchivedAttributeDictionary.init)
    }
}
