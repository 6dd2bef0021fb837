extension KeyedArchiver {
    /// Writes instances of `type` under `name` in this archive instead of the type's
    /// ``KeyedCoding/archivedClassName``; `nil` removes the mapping.
    ///
    /// Set it before encoding any instance of the type. This archiver's mapping wins over
    /// the process-wide one set with ``setClassName(_:for:)-swift.type.method``.
    ///
    /// - Parameters:
    ///   - name: The class name to write, or `nil`.
    ///   - type: The type whose instances are renamed.
    public func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        classNames[ObjectIdentifier(type)] = name
        if let position = typeCache.position(of: ObjectIdentifier(type)) {
            typeCache[position].classUID = nil
        }
    }

    /// The class name set for `type` on this archiver, if any.
    ///
    /// - Parameter type: A type.
    /// - Returns: The name set with ``setClassName(_:for:)-swift.method``, or `nil`.
    public func className(for type: any KeyedCoding.Type) -> String? {
        classNames[ObjectIdentifier(type)]
    }

    /// Writes instances of `type` under `name` in every archive made afterwards by any
    /// archiver in the process; `nil` removes the mapping.
    ///
    /// This function is thread-safe.
    ///
    /// - Parameters:
    ///   - name: The class name to write, or `nil`.
    ///   - type: The type whose instances are renamed.
    public static func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        ArchiveClassRegistry.shared.setClassName(name, for: type)
    }

    /// The process-wide class name set for `type`, if any.
    ///
    /// - Parameter type: A type.
    /// - Returns: The name set with ``setClassName(_:for:)-swift.type.method``, or `nil`.
    public static func className(for type: any KeyedCoding.Type) -> String? {
        ArchiveClassRegistry.shared.className(for: type)
    }

    /// The name written for `type`: this archiver's mapping, the process-wide mapping,
    /// or the type's own ``KeyedCoding/archivedClassName``.
    func archivedName(of type: any KeyedCoding.Type) -> String {
        if let name = classNames[ObjectIdentifier(type)] { return name }
        if let name = ArchiveClassRegistry.shared.className(for: type) { return name }
        return type.archivedClassName
    }

    /// The index of the class description for `type`, stored the first time.
    func classUID(for type: any KeyedCoding.Type, instance: any KeyedCoding) -> Int {
        let position = traitsPosition(of: type)
        if let uid = typeCache[position].classUID { return uid }
        if let dynamic = instance as? any ArchiveDynamicClass {
            // Not cached: the class depends on the instance.
            let chain = dynamic.archivedClassChain
            return table.classIndex(name: chain.first ?? archivedName(of: type), classes: chain)
        }
        let name = archivedName(of: type)
        let uid = table.classIndex(name: name, classes: classChain(of: type, instance: instance, name: name))
        typeCache[position].classUID = uid
        return uid
    }

    /// `$classes`: the class's name, its superclasses' names, then `NSObject`.
    func classChain(of type: any KeyedCoding.Type, instance: any KeyedCoding, name: String) -> [String] {
        var chain = [name]
        if let explicit = type.archivedSuperclassNames {
            chain += explicit
        } else if type is AnyObject.Type {
            // The Swift class hierarchy, without the Objective-C runtime.
            var mirror = Mirror(reflecting: instance).superclassMirror
            while let current = mirror {
                let superclass = current.subjectType
                if let coding = superclass as? any KeyedCoding.Type {
                    chain.append(archivedName(of: coding))
                } else {
                    let superclassName = String(reflecting: superclass)
                    if superclassName == "NSObject" || superclassName.hasSuffix(".NSObject") { break }
                    chain.append(superclassName)
                }
                mirror = current.superclassMirror
            }
        }
        if chain.last != "NSObject" { chain.append("NSObject") }
        return chain
    }
}
