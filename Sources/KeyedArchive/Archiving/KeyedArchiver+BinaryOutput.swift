#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Binary output streams the flat object table straight into the binary property-list
/// builder, without building a ``PropertyList`` tree.
extension KeyedArchiver {
    func binaryArchiveData() throws -> Data {
        var builder = BinaryPropertyListBuilder()
        let root = builder.reserveObject()
        let rootKeys = ["$archiver", "$objects", "$top", "$version"].map { builder.addString($0) }
        let archiverName = builder.addString("NSKeyedArchiver")
        let objects = builder.reserveObject()
        let top = builder.reserveObject()
        let version = builder.addInteger(PropertyListInteger(100_000))
        let (topKeys, topValues) = Self.add(containers[0].fields, classUID: nil, to: &builder)
        try builder.setDictionary(top, keys: topKeys, values: topValues)
        var elements: [Int] = []
        elements.reserveCapacity(table.count)
        for record in table.records {
            elements.append(try Self.add(record, to: &builder))
        }
        try builder.setArray(objects, elements: elements)
        try builder.setDictionary(root, keys: rootKeys, values: [archiverName, objects, top, version])
        return try builder.finish(topObject: root)
    }

    private static func add(_ record: ArchivedObjectRecord, to builder: inout BinaryPropertyListBuilder)
        throws -> Int
    {
        switch record {
        case .null, .reserved: return builder.addString("$null")
        case .string(let value): return builder.addString(value)
        case .integer(let value): return builder.addInteger(value)
        case .real(let bits): return builder.addReal(Double(bitPattern: bits))
        case .bool(let value): return builder.addBool(value)
        case .data(let value): return builder.addData(value)
        case .object(let classUID, let fields):
            let (keys, values) = add(fields, classUID: classUID, to: &builder)
            return try builder.addDictionary(keys: keys, values: values)
        case .classDescription(let name, let classes):
            let keys = [builder.addString("$classname"), builder.addString("$classes")]
            let nameObject = builder.addString(name)
            let chain = classes.map { builder.addString($0) }
            let chainObject = builder.addArray(chain)
            return try builder.addDictionary(keys: keys, values: [nameObject, chainObject])
        }
    }

    /// The keys and values of an object's dictionary; a key encoded twice keeps its last value.
    private static func add(
        _ fields: [ArchiveField], classUID: Int?, to builder: inout BinaryPropertyListBuilder
    ) -> (keys: [Int], values: [Int]) {
        var keys: [Int] = []
        var values: [Int] = []
        keys.reserveCapacity(fields.count + 1)
        values.reserveCapacity(fields.count + 1)
        if let classUID {
            keys.append(builder.addString("$class"))
            values.append(builder.addUID(UInt64(classUID)))
        }
        let unique = hasUniqueKeys(fields)
        for (position, field) in fields.enumerated() {
            if !unique, fields[(position + 1)...].contains(where: { $0.key == field.key }) { continue }
            keys.append(builder.addString(field.key))
            values.append(add(field.value, to: &builder))
        }
        return (keys, values)
    }

    private static func hasUniqueKeys(_ fields: [ArchiveField]) -> Bool {
        if fields.count < 2 { return true }
        if fields.count <= 8 {
            for first in fields.indices {
                for second in fields.indices where second > first && fields[first].key == fields[second].key {
                    return false
                }
            }
            return true
        }
        return Set(fields.lazy.map(\.key)).count == fields.count
    }

    private static func add(_ value: ArchiveFieldValue, to builder: inout BinaryPropertyListBuilder) -> Int {
        switch value {
        case .reference(let uid): return builder.addUID(UInt64(uid))
        case .conditional: return builder.addUID(0)
        case .integer(let value): return builder.addInteger(value)
        case .real(let bits): return builder.addReal(Double(bitPattern: bits))
        case .bool(let value): return builder.addBool(value)
        case .data(let value): return builder.addData(value)
        case .string(let value): return builder.addString(value)
        case .references(let uids):
            var elements: [Int] = []
            elements.reserveCapacity(uids.count)
            for uid in uids { elements.append(builder.addUID(UInt64(uid))) }
            return builder.addArray(elements)
        }
    }
}
