extension KeyedUnarchiver {
    /// Decodes a reference that may point back to an object whose `init(coder:)` is still
    /// running (a cycle), delivering the object to `assign` once it is fully initialized.
    ///
    /// A plain ``decodeObject(of:forKey:)->T?`` of such a reference fails with
    /// `unresolvableCycle`, because the object is half-built. This method never hands it
    /// out early: if the object is complete (or not yet started, and then decoded now),
    /// `assign` runs before this method returns; if its `init(coder:)` is running, `assign`
    /// runs right after that initializer returns. Either way every assignment has run
    /// before the top-level decode returns; if the decode fails, pending assignments are
    /// dropped. Nothing is assigned when the key is missing or holds nil.
    ///
    /// The usual case is a child pointing back to its parent:
    ///
    /// ```swift
    /// final class Folder: SecureKeyedCoding {
    ///     let name: String
    ///     var children: [Item] = []
    ///     init(coder: KeyedUnarchiver) throws {
    ///         name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
    ///         children = try coder.decodeArrayOfObjects(ofClass: Item.self, forKey: "children") ?? []
    ///     }
    ///     func encode(with coder: KeyedArchiver) {
    ///         coder.encode(name, forKey: "name")
    ///         coder.encode(children, forKey: "children")
    ///     }
    /// }
    ///
    /// final class Item: SecureKeyedCoding {
    ///     let title: String
    ///     weak var parent: Folder?
    ///     init(coder: KeyedUnarchiver) throws {
    ///         title = try coder.decodeObject(of: String.self, forKey: "title") ?? ""
    ///         // `parent` is still decoding its children: assigned when its init returns.
    ///         try coder.decodeBackReference(of: Folder.self, forKey: "parent") { [weak self] folder in
    ///             self?.parent = folder
    ///         }
    ///     }
    ///     func encode(with coder: KeyedArchiver) {
    ///         coder.encode(title, forKey: "title")
    ///         coder.encodeConditionalObject(parent, forKey: "parent")
    ///     }
    /// }
    /// ```
    ///
    /// The class is checked exactly as by ``decodeObject(of:forKey:)->T?``, before anything is
    /// constructed or deferred.
    ///
    /// - Parameters:
    ///   - type: The class of the referenced object.
    ///   - key: The key in the current object.
    ///   - assign: Receives the complete object; it must not decode.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject(of:forKey:)->T?``, except that a
    ///   reference to an object in progress is deferred instead of failing.
    public func decodeBackReference<T: AnyObject & KeyedCoding>(
        of type: T.Type, forKey key: String, then assign: @escaping (T) -> Void
    ) throws {
        try perform(.key(key)) {
            guard let value = try fieldValue(forKey: archiveEscapedKey(key)) else { return }
            let uid = try referenceIndex(value)
            guard uid != 0 else { return }
            if inProgressClassName(uid) != nil {
                guard case .object(let fields) = try entry(at: uid) else {
                    throw failure(
                        .typeMismatch,
                        "expected \(T.archivedClassName), found \(try object(at: uid).archivedKindName)")
                }
                _ = try resolve(classDescription(of: fields, uid: uid), for: T.self)
                let location = ArchiveKeyPath.render(path)
                pendingAssignments[uid, default: []].append { [weak self] object in
                    if let typed = object as? T {
                        assign(typed)
                    } else if let self, self.recordedError == nil {
                        self.recordedError = KeyedArchiveError(
                            .typeMismatch, "expected \(T.archivedClassName), found \(Swift.type(of: object))",
                            at: .keyPath(location))
                    }
                }
                return
            }
            if let object = try decodeReference(uid, as: T.self) { assign(object) }
        }
    }
}
