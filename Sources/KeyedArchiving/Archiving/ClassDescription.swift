/// A class description of `$objects` (`{ $classname, $classes, $classhints }`) as the
/// unarchiver uses it.
package struct ClassDescription {
    /// Its index in `$objects`.
    let uid: Int
    /// `$classname`.
    package let name: String
    /// `$classes`: the class and its superclasses, nearest first (just the class when absent).
    let chain: [String]
    /// `$classhints`: alternative names to try when the class is unknown.
    let hints: [String]

    /// A class description read by other means (an object graph's entries read in place).
    init(uid: Int, name: String, chain: [String], hints: [String]) {
        self.uid = uid
        self.name = name
        self.chain = chain
        self.hints = hints
    }

    /// Parses the entry a `$class` reference points to.
    ///
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` (without a location).
    init(parsing entry: PropertyList, uid: Int) throws {
        guard case .dictionary(let fields) = entry else {
            throw KeyedArchiveError(
                .invalidArchive,
                "$class refers to $objects[\(uid)], which is \(entry.archivedKindName), not a class description"
            )
        }
        guard let nameValue = fields["$classname"] else {
            throw KeyedArchiveError(.invalidArchive, "class description $objects[\(uid)] has no $classname")
        }
        guard case .string(let name) = nameValue else {
            throw KeyedArchiveError(
                .invalidArchive, "$classname of $objects[\(uid)] is \(nameValue.typeName), not a string")
        }
        self.uid = uid
        self.name = name
        self.chain = try Self.names(fields["$classes"], key: "$classes", uid: uid) ?? [name]
        self.hints = try Self.names(fields["$classhints"], key: "$classhints", uid: uid) ?? []
    }

    private static func names(_ value: PropertyList?, key: String, uid: Int) throws -> [String]? {
        guard let value else { return nil }
        guard case .array(let elements) = value else {
            throw KeyedArchiveError(
                .invalidArchive, "\(key) of $objects[\(uid)] is \(value.typeName), not an array")
        }
        return try elements.map { element in
            guard case .string(let name) = element else {
                throw KeyedArchiveError(
                    .invalidArchive,
                    "\(key) of $objects[\(uid)] contains \(element.typeName), not a class name")
            }
            return name
        }
    }

    /// The public form, for object graphs.
    var archivedClass: ArchivedObjectGraph.ClassDescription {
        ArchivedObjectGraph.ClassDescription(className: name, classChain: chain, classHints: hints)
    }
}
