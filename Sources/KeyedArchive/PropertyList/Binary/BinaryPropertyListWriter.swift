#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes a ``PropertyList`` as a binary property list (`bplist00`).
///
/// Objects are numbered as Python's `plistlib` numbers them, which reproduces Cocoa's
/// output byte for byte: depth first, a container before its contents, a dictionary's
/// keys (sorted when ``PropertyListWritingOptions/sortsKeys``) before its values, equal
/// scalars stored once. The tree is walked iteratively, so any depth can be written.
enum BinaryPropertyListWriter {
    /// Encodes `value`.
    ///
    /// - Throws: `invalidValue` for a NaN or infinite date.
    static func write(_ value: PropertyList, options: PropertyListWritingOptions) throws -> Data {
        var builder = BinaryPropertyListBuilder()
        let top = try builder.add(value, sortsKeys: options.sortsKeys)
        return try builder.finish(topObject: top)
    }
}

extension BinaryPropertyListBuilder {
    /// One container whose contents are being added.
    private struct Frame {
        let object: Int
        /// Arrays: the elements; dictionaries: the values.
        let children: [PropertyList]
        /// Order in which to visit `children`; empty means as they are.
        let order: [Int]
        /// Where this container's references start in the shared reference stack.
        let referenceBase: Int
        let isDictionary: Bool
        var next = 0
    }

    /// Adds `value` and everything it contains, in `plistlib`'s order.
    ///
    /// - Parameters:
    ///   - value: The value to add.
    ///   - sortsKeys: Whether dictionary keys are visited in sorted order (by Unicode
    ///     scalar values, which is UTF-8 byte order).
    /// - Returns: The object number of `value`.
    /// - Throws: `invalidValue` for a NaN or infinite date.
    mutating func add(_ value: PropertyList, sortsKeys: Bool) throws -> Int {
        if let scalar = try addScalar(value) { return scalar }
        let root = reserveObject()
        var stack: [Frame] = []
        var pending: [Int] = []  // references of the open containers, innermost last
        try open(value, as: root, sortsKeys: sortsKeys, stack: &stack, pending: &pending)
        while let top = stack.indices.last {
            let next = stack[top].next
            if next < stack[top].children.count {
                stack[top].next = next + 1
                let childIndex = stack[top].order.isEmpty ? next : stack[top].order[next]
                let child = stack[top].children[childIndex]
                if let scalar = try addScalar(child) {
                    pending.append(scalar)
                } else {
                    let object = reserveObject()
                    pending.append(object)
                    try open(child, as: object, sortsKeys: sortsKeys, stack: &stack, pending: &pending)
                }
            } else {
                let frame = stack.removeLast()
                let references = pending[frame.referenceBase...]
                if frame.isDictionary {
                    let split = frame.referenceBase + frame.children.count
                    try setDictionary(
                        frame.object, keys: pending[frame.referenceBase..<split], values: pending[split...])
                } else {
                    try setArray(frame.object, elements: references)
                }
                pending.removeSubrange(frame.referenceBase...)
            }
        }
        return root
    }

    /// Adds a scalar and returns its number, or returns `nil` for a container.
    private mutating func addScalar(_ value: PropertyList) throws -> Int? {
        switch value {
        case .string(let string): return addString(string)
        case .integer(let integer): return addInteger(integer)
        case .real(let real): return addReal(real)
        case .bool(let bool): return addBool(bool)
        case .date(let date): return try addDate(date)
        case .data(let data): return addData(data)
        case .uid(let uid): return addUID(uid)
        case .array, .dictionary: return nil
        }
    }

    private mutating func open(
        _ container: PropertyList, as object: Int, sortsKeys: Bool, stack: inout [Frame], pending: inout [Int]
    ) throws {
        switch container {
        case .array(let elements):
            stack.append(
                Frame(
                    object: object, children: elements, order: [], referenceBase: pending.count,
                    isDictionary: false))
        case .dictionary(let dictionary):
            let keys = dictionary.keys
            var order: [Int] = []
            if sortsKeys && !Self.isSorted(keys) {
                order = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
            }
            let base = pending.count
            if order.isEmpty {
                for key in keys { pending.append(addString(key)) }
            } else {
                for index in order { pending.append(addString(keys[index])) }
            }
            stack.append(
                Frame(
                    object: object, children: dictionary.values, order: order, referenceBase: base,
                    isDictionary: true))
        default:
            break
        }
    }

    private static func isSorted(_ keys: [String]) -> Bool {
        var previous: String?
        for key in keys {
            if let previous, !previous.utf8.lexicographicallyPrecedes(key.utf8) { return false }
            previous = key
        }
        return true
    }
}
