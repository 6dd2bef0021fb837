#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A URL request as Foundation's `NSURLRequest` (or `NSMutableURLRequest`) archives it, in
/// either of the two layouts found in archives:
///
/// - **Apple's** (CFNetwork's `-[NSURLRequest encodeWithCoder:]`): three unkeyed integers
///   (`$0`, the coder's version, 2; `$1`, the version of CFNetwork's archive list; `$2`, the
///   number of its entries, at most 22), the entries as numbered properties
///   (`__nsurlrequest_proto_prop_obj_0`, …), the protocol properties
///   (`__nsurlrequest_proto_props`, a dictionary) and keyed flags (`startTimeoutTime`,
///   `payloadTransmissionTimeout`, `allowedProtocolTypes`, `attribution`, …). Which entry
///   of the list holds what is CFNetwork's private order, which no public source states;
///   only the URL, property 0 as in CFNetwork's archived responses, is read from it.
/// - **Foundation on Linux's** (swift-corelibs-foundation's FoundationNetworking):
///   `NS.url`, `NS.httpMethod`, `NS._allHTTPHeaderFields`, `NS.httpBody`,
///   `NS._timeoutInterval`, `NS._cachePolicy`, `NS.mainDocumentURL`,
///   `NS._httpShouldHandleCookies`, `NS._httpShouldUsePipelining`,
///   `NS._allowsCellularAccess`, `NS._networkServiceType`, under the class names
///   `FoundationNetworking.NSURLRequest` / `FoundationNetworking.NSMutableURLRequest`.
///
/// Every field is kept in ``fields`` and written back as read, under the class read, so a
/// request read and written again is the same property list. A new request
/// (``init(url:httpMethod:headerFields:body:timeoutInterval:cachePolicy:mainDocumentURL:isMutable:)``)
/// is written in Foundation on Linux's layout, the one a peer on this platform reads
/// (with `setClass(_:forClassName:)` mapping Apple's class name to its own), under Apple's
/// class name; Apple's `NSURLRequest` reads only its own layout.
///
/// ```swift
/// let request = ArchivedURLRequest(url: URL(string: "https://example.com/")!, httpMethod: "POST")
/// let data = try KeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedURLRequest.self, from: data)
/// print(copy?.description ?? "")   // POST https://example.com/
/// ```
public struct ArchivedURLRequest: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The archived class: `NSURLRequest`, `NSMutableURLRequest`, or Foundation on Linux's
    /// `FoundationNetworking.NSURLRequest` / `FoundationNetworking.NSMutableURLRequest`.
    public var className: String
    /// Every field of the archived object, by key.
    public var fields: [String: ArchivedAttributeValue]
    /// The fields that held their bytes in place (Foundation on Linux's `NS.httpBody`)
    /// rather than as an `NSData` object, written back the same way.
    var inlineDataKeys: Set<String> = []
    /// The number fields stored as `NSNumber` objects rather than in place (Foundation on
    /// Linux stores them so, and reads only references), written back the same way.
    var referencedNumberKeys: Set<String> = []

    /// The layout of an archived request.
    public enum Layout: Hashable, Sendable {
        /// CFNetwork's: unkeyed `$0`…`$2`, numbered properties, protocol properties.
        case apple
        /// swift-corelibs-foundation's: `NS.url`, `NS.httpMethod`, ….
        case foundationOnLinux
    }

    /// Creates a request from its archived fields.
    ///
    /// - Parameters:
    ///   - fields: The fields, under the keys of either layout.
    ///   - className: The archived class.
    public init(fields: [String: ArchivedAttributeValue], className: String = "NSURLRequest") {
        self.fields = fields
        self.className = className
    }

    /// Creates a request in Foundation on Linux's layout (the one verified against a peer).
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - httpMethod: The HTTP method; `GET` when `nil`.
    ///   - headerFields: The header fields.
    ///   - body: The body, if any.
    ///   - timeoutInterval: The timeout in seconds.
    ///   - cachePolicy: The cache policy's number, as ``cachePolicy`` reads it.
    ///   - mainDocumentURL: The main document's URL, if any.
    ///   - isMutable: Whether to archive it as `NSMutableURLRequest`.
    public init(
        url: URL, httpMethod: String? = nil, headerFields: [String: String] = [:], body: Data? = nil,
        timeoutInterval: Double = 60, cachePolicy: Int = 0, mainDocumentURL: URL? = nil,
        isMutable: Bool = false
    ) {
        var fields: [String: ArchivedAttributeValue] = [
            Key.url: .url(url), Key.httpMethod: .string(httpMethod ?? "GET"),
            Key.timeoutInterval: .real(timeoutInterval), Key.cachePolicy: .integer(cachePolicy),
            Key.mainDocumentURL: mainDocumentURL.map(ArchivedAttributeValue.url) ?? .null,
            Key.allHTTPHeaderFields: headerFields.isEmpty ? .null : (.archivedObject(headerFields) ?? .null),
            Key.httpShouldHandleCookies: .bool(true), Key.httpShouldUsePipelining: .bool(true),
            Key.allowsCellularAccess: .bool(true), Key.networkServiceType: .integer(0),
        ]
        var inline: Set<String> = []
        if let body {
            fields[Key.httpBody] = .data(body)
            inline.insert(Key.httpBody)
        }
        self.init(
            fields: fields,
            className: isMutable ? AppleClass.mutableURLRequest.name : AppleClass.urlRequest.name)
        inlineDataKeys = inline
        referencedNumberKeys = [
            Key.timeoutInterval, Key.cachePolicy, Key.httpShouldHandleCookies, Key.httpShouldUsePipelining,
            Key.allowsCellularAccess, Key.networkServiceType,
        ]
    }

    /// The keys of Foundation on Linux's layout.
    enum Key {
        static let url = "NS.url"
        static let httpMethod = "NS.httpMethod"
        static let allHTTPHeaderFields = "NS._allHTTPHeaderFields"
        static let httpBody = "NS.httpBody"
        static let timeoutInterval = "NS._timeoutInterval"
        static let cachePolicy = "NS._cachePolicy"
        static let mainDocumentURL = "NS.mainDocumentURL"
        static let httpShouldHandleCookies = "NS._httpShouldHandleCookies"
        static let httpShouldUsePipelining = "NS._httpShouldUsePipelining"
        static let allowsCellularAccess = "NS._allowsCellularAccess"
        static let networkServiceType = "NS._networkServiceType"
        static let protocolProperties = "__nsurlrequest_proto_props"
    }

    static func property(_ number: Int) -> String { "__nsurlrequest_proto_prop_obj_\(number)" }

    /// `NSURLRequest`; a request is written under the class it was read or made as.
    public static var archivedClassName: String { AppleClass.urlRequest.name }

    /// Whether the class is a mutable request (`NSMutableURLRequest`).
    public var isMutable: Bool { className.hasSuffix(AppleClass.mutableURLRequest.name) }

    /// The layout of the fields: Apple's when the unkeyed version (`$0`) or a numbered
    /// property is present.
    public var layout: Layout {
        fields["$0"] != nil || fields[Self.property(0)] != nil ? .apple : .foundationOnLinux
    }

    /// Apple's layout: the version of CFNetwork's archive list (`$1`).
    public var archiveListVersion: Int? { layout == .apple ? fields["$1"]?.intValue : nil }

    /// Apple's layout: CFNetwork's archive list, the numbered properties in order (`$2` of
    /// them, or as many as are present); `nil` stands for an entry archived as nil.
    public var archiveList: [ArchivedAttributeValue] {
        guard layout == .apple else { return [] }
        let declared = fields["$2"]?.intValue ?? 0
        var count = 0
        while count < 64, fields[Self.property(count)] != nil { count += 1 }
        let total = max(0, min(max(count, declared), 64))
        return (0..<total).map { fields[Self.property($0)] ?? .null }
    }

    /// Apple's layout: the protocol properties (`__nsurlrequest_proto_props`, set by
    /// `URLProtocol.setProperty(_:forKey:in:)`), as the dictionary's graph.
    public var protocolProperties: ArchivedAttributeValue? {
        guard let value = fields[Key.protocolProperties], value != .null else { return nil }
        return value
    }

    /// The URL: `NS.url`, or in Apple's layout property 0.
    public var url: URL? {
        let value = layout == .apple ? fields[Self.property(0)] : fields[Key.url]
        if case .url(let url)? = value { return url }
        return nil
    }

    /// The HTTP method (`NS.httpMethod`; not known in Apple's layout).
    public var httpMethod: String? { fields[Key.httpMethod]?.stringValue }

    /// The header fields (`NS._allHTTPHeaderFields`, a dictionary of strings).
    public var headerFields: [String: String] {
        fields[Key.allHTTPHeaderFields]?.decodedObject(as: [String: String].self) ?? [:]
    }

    /// The body (`NS.httpBody`).
    public var body: Data? {
        if case .data(let bytes)? = fields[Key.httpBody] { return bytes }
        return nil
    }

    /// The timeout in seconds (`NS._timeoutInterval`).
    public var timeoutInterval: Double? { fields[Key.timeoutInterval]?.doubleValue }

    /// The cache policy's number as archived (`NS._cachePolicy`): Foundation on Linux numbers
    /// its `URLRequest.CachePolicy` cases in declaration order (`returnCacheDataElseLoad` is
    /// 3), where Apple's `NSURLRequestCachePolicy` has its own values (2 for that one).
    public var cachePolicy: Int? { fields[Key.cachePolicy]?.intValue }

    /// The main document's URL (`NS.mainDocumentURL`).
    public var mainDocumentURL: URL? {
        if case .url(let url)? = fields[Key.mainDocumentURL] { return url }
        return nil
    }

    /// Whether cookies are handled (`NS._httpShouldHandleCookies`).
    public var httpShouldHandleCookies: Bool? {
        fields[Key.httpShouldHandleCookies]?.intValue.map { $0 != 0 }
    }

    /// `POST https://example.com/` (the method when known).
    public var description: String {
        let parts = [httpMethod, url?.absoluteString].compactMap { $0 }
        return parts.isEmpty ? className : parts.joined(separator: " ")
    }

    /// Writes every field, under the keys read.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            if inlineDataKeys.contains(key), case .data(let bytes) = value {
                coder.encodeBytes(bytes, forKey: key)
            } else if referencedNumberKeys.contains(key) {
                coder.encodeAttributeReference(value, forKey: key)
            } else {
                coder.encodeAttributeField(value, forKey: key)
            }
        }
    }

    /// Reads an `NSURLRequest` or `NSMutableURLRequest` of either layout, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        className = coder.currentClassName
        fields = try coder.keptFields()
        for (key, value) in try coder.currentDictionary() {
            let unescaped = archiveUnescapedKey(key)
            switch (value, fields[unescaped]) {
            case (.data, _): inlineDataKeys.insert(unescaped)
            case (.uid, .integer?), (.uid, .real?), (.uid, .bool?): referencedNumberKeys.insert(unescaped)
            default: break
            }
        }
    }
}

extension ArchivedURLRequest: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { AppleClass.names(ofKind: .urlRequest) }
    package var archivedClassChain: [String] {
        AppleClass(name: className)?.chain ?? [className, "NSObject"]
    }
}

extension KeyedArchiver {
    /// Writes `value` under `key` as a reference to an object, numbers included.
    func encodeAttributeReference(_ value: ArchivedAttributeValue, forKey key: String) {
        guard canEncode() else { return }
        let object = table.builder.addUID(UInt64(attributeReference(value, at: .key(key))))
        appendField(table.keyObject(graphEscapedKey(key)), object)
    }
}
