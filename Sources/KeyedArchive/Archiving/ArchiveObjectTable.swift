#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value stored under a key inside an archived object's dictionary (or `$top`).
///
/// Reals are kept as bit patterns so that de-duplication tells `0.0` from `-0.0`.
enum ArchiveFieldValue: Hashable {
    /// A reference to `$objects[uid]`; 0 is nil.
    case reference(Int)
    /// A conditional reference, resolved by ``ArchiveObjectTable/resolveConditionals(_:)``:
    /// an index into the archiver's list of conditionally encoded objects.
    case conditional(Int)
    /// An inline integer.
    case integer(PropertyListInteger)
    /// An inline real, as `Double.bitPattern`.
    case real(UInt64)
    /// An inline Boolean.
    case bool(Bool)
    /// Inline bytes.
    case data(Data)
    /// An inline string (`NS.string` of `NSMutableString`).
    case string(String)
    /// An inline array of references (`NS.objects`, `NS.keys`).
    case references([Int])
}

/// One key-value pair of an archived object.
struct ArchiveField: Hashable {
    var key: String
    var value: ArchiveFieldValue
}

/// One entry of `$objects` as the archiver builds it: a flat record that refers to
/// other entries by index.
enum ArchivedObjectRecord: Hashable {
    /// `$objects[0]`, the string `$null`.
    case null
    /// A slot reserved for an object whose contents are being encoded.
    case reserved
    /// A plain string.
    case string(String)
    /// A plain integer.
    case integer(PropertyListInteger)
    /// A plain real, as `Double.bitPattern`.
    case real(UInt64)
    /// A plain Boolean.
    case bool(Bool)
    /// Plain bytes.
    case data(Data)
    /// An object dictionary: `$class` and its fields.
    case object(classUID: Int, fields: [ArchiveField])
    /// A class description `{ $classname, $classes }`.
    case classDescription(name: String, classes: [String])
}

/// The archiver's flat object table (`$objects`), with value de-duplication.
struct ArchiveObjectTable {
    private(set) var records: [ArchivedObjectRecord] = [.null]
    /// Plain values and struct objects already stored, by value.
    private var uniqueRecords: [ArchivedObjectRecord: Int] = [:]
    /// Class descriptions already stored, by class name.
    private var classDescriptions: [String: Int] = [:]

    /// The number of entries, including `$null`.
    var count: Int { records.count }

    /// Returns the index of a plain value, storing it if it is new.
    mutating func uniqueIndex(of record: ArchivedObjectRecord) -> Int {
        if let existing = uniqueRecords[record] { return existing }
        let index = records.count
        records.append(record)
        uniqueRecords[record] = index
        return index
    }

    /// Reserves a slot for an object whose contents are about to be encoded.
    mutating func reserve() -> Int {
        records.append(.reserved)
        return records.count - 1
    }

    /// Stores an object with identity (a class instance) in its reserved slot.
    mutating func fill(_ index: Int, with record: ArchivedObjectRecord) {
        guard records.indices.contains(index) else { return }
        records[index] = record
    }

    /// Stores a value-type object in its reserved slot, or, when an equal object is
    /// already stored, releases the slot and returns the existing index.
    ///
    /// An equal record can only refer to entries that existed before the slot was
    /// reserved, so everything encoded after the slot was itself de-duplicated and the
    /// slot is the last entry; it is released only in that case.
    mutating func fillDeduplicating(_ index: Int, with record: ArchivedObjectRecord) -> Int {
        if let existing = uniqueRecords[record], index == records.count - 1 {
            records.removeLast()
            return existing
        }
        fill(index, with: record)
        if uniqueRecords[record] == nil { uniqueRecords[record] = index }
        return index
    }

    /// Returns the index of the class description for `name`, storing it if needed.
    mutating func classIndex(name: String, classes: @autoclosure () -> [String]) -> Int {
        if let existing = classDescriptions[name] { return existing }
        let index = records.count
        records.append(.classDescription(name: name, classes: classes()))
        classDescriptions[name] = index
        return index
    }

    /// Replaces every conditional reference with the object's index, or 0 when the
    /// object was never encoded unconditionally.
    mutating func resolveConditionals(_ resolve: (Int) -> Int) {
        for index in records.indices {
            guard case .object(let classUID, var fields) = records[index] else { continue }
            var changed = false
            for position in fields.indices {
                if case .conditional(let token) = fields[position].value {
                    fields[position].value = .reference(resolve(token))
                    changed = true
                }
            }
            if changed { records[index] = .object(classUID: classUID, fields: fields) }
        }
    }

    /// The table as the `$objects` array of a property list.
    func propertyListObjects() -> [PropertyList] {
        var objects: [PropertyList] = []
        objects.reserveCapacity(records.count)
        for record in records {
            switch record {
            case .null, .reserved: objects.append(.string("$null"))
            case .string(let value): objects.append(.string(value))
            case .integer(let value): objects.append(.integer(value))
            case .real(let bits): objects.append(.real(Double(bitPattern: bits)))
            case .bool(let value): objects.append(.bool(value))
            case .data(let value): objects.append(.data(value))
            case .object(let classUID, let fields):
                var dictionary = Self.dictionary(fields, capacity: fields.count + 1)
                dictionary["$class"] = .uid(UInt64(classUID))
                objects.append(.dictionary(dictionary))
            case .classDescription(let name, let classes):
                objects.append([
                    "$classname": .string(name),
                    "$classes": .array(classes.map { .string($0) }),
                ])
            }
        }
        return objects
    }

    /// Converts fields to a property-list dictionary; a repeated key keeps its last value.
    static func dictionary(_ fields: [ArchiveField], capacity: Int) -> PropertyListDictionary {
        var dictionary = PropertyListDictionary(minimumCapacity: capacity)
        for field in fields {
            dictionary[field.key] = propertyList(field.value)
        }
        return dictionary
    }

    private static func propertyList(_ value: ArchiveFieldValue) -> PropertyList {
        switch value {
        case .reference(let uid): return .uid(UInt64(uid))
        case .conditional: return .uid(0)
        case .integer(let value): return .integer(value)
        case .real(let bits): return .real(Double(bitPattern: bits))
        case .bool(let value): return .bool(value)
        case .data(let value): return .data(value)
        case .string(let value): return .string(value)
        case .references(let uids): return .array(uids.map { .uid(UInt64($0)) })
        }
    }
}
