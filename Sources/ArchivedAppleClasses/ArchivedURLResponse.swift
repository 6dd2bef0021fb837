#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A URL response as Foundation's `NSHTTPURLResponse` (or `NSURLResponse`) archives it in
/// web archives (`WebResourceResponse`): CFNetwork's numbered properties
/// (`__nsurlrequest_proto_prop_obj_0`, …) after a few unkeyed values (`$0`…).
///
/// Every field is kept in ``fields`` and written back as read; the properties read the
/// ones whose meaning is known: the URL (property 0), the time the response was received
/// (1), the status code (3), the header fields (4) and the MIME type (6).
public struct ArchivedURLResponse: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// Whether the response is archived as `NSHTTPURLResponse` (else `NSURLResponse`).
    public var isHTTP: Bool
    /// Every field of the archived object, by key.
    public var fields: [String: ArchivedAttributeValue]

    /// Creates a response from its fields.
    ///
    /// - Parameters:
    ///   - fields: The fields, under Apple's keys.
    ///   - isHTTP: Whether to archive it as `NSHTTPURLResponse`.
    public init(fields: [String: ArchivedAttributeValue], isHTTP: Bool = true) {
        self.fields = fields
        self.isHTTP = isHTTP
    }

    static func property(_ number: Int) -> String { "__nsurlrequest_proto_prop_obj_\(number)" }

    /// `NSURLResponse`; an HTTP response is written as `NSHTTPURLResponse`.
    public static var archivedClassName: String { CataloguedClass.urlResponse.name }

    /// The URL (property 0).
    public var url: URL? {
        if case .url(let url)? = fields[Self.property(0)] { return url }
        return nil
    }

    /// When the response was received (property 1, seconds since 2001).
    public var date: Date? {
        fields[Self.property(1)]?.doubleValue.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// The HTTP status code (property 3).
    public var statusCode: Int? { fields[Self.property(3)]?.intValue }

    /// The MIME type (property 6).
    public var mimeType: String? { fields[Self.property(6)]?.stringValue }

    /// The header fields (property 4, a dictionary of strings).
    public var headerFields: [String: String] {
        guard case .object(let graph)? = fields[Self.property(4)], case .reference(let uid)? = graph.root,
            let object = graph.object(at: uid), case .array(let keys)? = object["NS.keys"],
            case .array(let values)? = object["NS.objects"], keys.count == values.count
        else { return [:] }
        func text(_ value: ArchivedObjectGraph.Value) -> String? {
            switch value {
            case .string(let string): return string
            case .reference(let node):
                if case .value(.string(let string))? = graph[node] { return string }
                return nil
            default: return nil
            }
        }
        var result: [String: String] = [:]
        for (key, value) in zip(keys, values) {
            if let name = text(key), let field = text(value) { result[name] = field }
        }
        return result
    }

    /// `200 https://… image/png`.
    public var description: String {
        [statusCode.map(String.init), url?.absoluteString, mimeType].compactMap { $0 }.joined(separator: " ")
    }

    /// Writes every field.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    /// Reads an `NSHTTPURLResponse` or `NSURLResponse`, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        isHTTP = coder.currentClassName == CataloguedClass.httpURLResponse.name
        fields = try coder.otherFields(excluding: [])
    }
}

extension ArchivedURLResponse: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .urlResponse) }
    package var archivedClassChain: [String] {
        (isHTTP ? CataloguedClass.httpURLResponse : .urlResponse).chain
    }
}
