#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedUnarchiver {
    /// Reads a whole keyed archive as a generic object graph, whatever its classes,
    /// without constructing any Swift type: for inspecting archives from unknown sources.
    ///
    /// ```swift
    /// let graph = try KeyedUnarchiver.objectGraph(from: data)
    /// print(graph)
    /// ```
    ///
    /// - Parameters:
    ///   - data: A keyed archive in binary or XML property-list form.
    ///   - options: Limits for reading; the defaults are safe for untrusted input.
    /// - Returns: The graph; its ``ArchivedObjectGraph/root`` is `$top["root"]`.
    /// - Throws: ``KeyedArchiveError``: the errors of ``init(forReadingFrom:options:)``,
    ///   or `invalidArchive` (located at `$objects[n]`) for an object without a valid
    ///   class description or a reference out of range.
    /// - Complexity: O(*n*) in the size of the archive.
    public static func objectGraph(
        from data: Data, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws -> ArchivedObjectGraph {
        try KeyedUnarchiver(forReadingFrom: data, options: options).objectGraph()
    }

    /// Reads a keyed archive that is already a property-list value as a generic object graph.
    ///
    /// - Parameters:
    ///   - propertyList: The archive's root dictionary.
    ///   - options: Limits for reading.
    /// - Returns: The graph.
    /// - Throws: ``KeyedArchiveError`` as ``objectGraph(from:options:)-(Data,_)``.
    public static func objectGraph(
        from propertyList: PropertyList, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws -> ArchivedObjectGraph {
        try KeyedUnarchiver(propertyList: propertyList, options: options).objectGraph()
    }

    /// The whole archive this unarchiver reads, as a generic object graph.
    ///
    /// - Returns: The graph; its ``ArchivedObjectGraph/root`` is `$top["root"]`.
    /// - Throws: ``KeyedArchiveError`` as ``objectGraph(from:options:)-(Data,_)``.
    public func objectGraph() throws -> ArchivedObjectGraph {
        if let genericGraph { return genericGraph.rooted(at: genericGraph.topLevelValue(forKey: "root")) }
        // Called on its own, building the graph is an operation with its own budget;
        // from inside a decode, it shares that decode's.
        if depth == 0 { source.beginOperation() }
        var builder = ArchiveGraphBuilder(source: source, recovering: currentOptions.recoversFromDamage)
        let graph = try builder.build()
        genericGraph = graph
        return graph
    }

    /// The object at `uid` as a generic graph rooted at it.
    package func genericObject(at uid: Int) throws -> ArchivedObjectGraph {
        do {
            return try objectGraph().rooted(at: .reference(uid))
        } catch let error as KeyedArchiveError {
            throw located(error)
        }
    }
}
