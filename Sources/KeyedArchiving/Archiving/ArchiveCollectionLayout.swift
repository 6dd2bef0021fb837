/// Where Apple's collection classes keep their elements in an object's dictionary: the
/// one rule the unarchiver and the Codable reader both read collections by.
///
/// - `NSArray`, `NSSet` and their mutable variants: `NS.objects`, an array of references.
/// - `NSOrderedSet`: `NS.object.0`, `NS.object.1`, … (keyed archives before `NS.objects`).
/// - `NSCountedSet`: `NS.count` elements `NS.object0`, `NS.object1`, … each with its
///   count in `NS.count0`, `NS.count1`, ….
enum ArchiveCollectionLayout {
    /// What is wrong with a collection's layout, for the caller to locate.
    struct Problem: Error {
        let message: String
    }

    /// The element references of the collection whose fields are `fields`, unchecked (the
    /// caller resolves each); none when it has no elements.
    ///
    /// - Complexity: O(*n*) in the number of fields; a count is never trusted beyond them.
    static func elementReferences(in fields: PropertyListDictionary) throws(Problem) -> [PropertyList] {
        if let objects = fields["NS.objects"] {
            guard case .array(let elements) = objects else {
                throw Problem(
                    message: "NS.objects is \(objects.archivedKindName), not an array of references")
            }
            return elements
        }
        if fields["NS.object.0"] != nil {
            var elements: [PropertyList] = []
            while elements.count < fields.count, let value = fields["NS.object.\(elements.count)"] {
                elements.append(value)
            }
            return elements
        }
        if let countValue = fields["NS.count"] {
            guard let count = countValue.intValue, count >= 0, count <= fields.count else {
                throw Problem(message: "NS.count is not a count of this object's elements")
            }
            var elements: [PropertyList] = []
            elements.reserveCapacity(count)
            for position in 0..<count {
                guard let value = fields["NS.object\(position)"] else {
                    throw Problem(message: "NS.count is \(count) but NS.object\(position) is missing")
                }
                elements.append(value)
            }
            return elements
        }
        return []
    }
}
