#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedObjectGraph {
    /// An object of a class the catalogue knows, as people think of it: an attributed
    /// string as its text and runs, a colour as its space and components, a font as
    /// `Name size pt`, an index set as ranges, a decimal as its number.
    public struct Summary: Hashable, Sendable {
        /// The class name.
        public let className: String
        /// One line: `"Hello"`, `calibratedRGB 1 0 0 1 #FF0000FF`, `Helvetica 12 pt`, …
        public let text: String
        /// Further lines, such as an attributed string's runs.
        public let details: [String]
        /// The same as a property list for JSON: a dictionary of the value's parts.
        public let value: PropertyList
    }

    /// The most objects an object may reach and still be summarized: 256.
    public static let largestSummarizedObject = 256

    /// The summary of object `uid` when its class, or its nearest superclass in
    /// `$classes`, is one the catalogue reads as a typed
    /// value (``ArchivedAttributedString``, ``ArchivedColor``, ``ArchivedFont``,
    /// ``ArchivedParagraphStyle``, ``ArchivedIndexSet``, `IndexPath`, `Decimal`, …) or is
    /// `NSURL`, `NSUUID` or `NSDate` (a URL as its absolute string, a UUID as its text, a
    /// date in ISO 8601), and the object decodes as one; `nil` otherwise.
    ///
    /// - Parameter uid: An index into ``nodes``.
    /// - Returns: The summary, or `nil`.
    /// - Complexity: O(*n*) in the size of the part of the graph the object reaches, at
    ///   most ``largestSummarizedObject`` objects (a larger one has no summary): it is
    ///   written as an archive of its own and decoded securely, so nothing in it runs code
    ///   the catalogue does not own.
    public func summary(ofObjectAt uid: Int) -> Summary? {
        guard nodes.indices.contains(uid), let object = object(at: uid) else { return nil }
        func decoded<T: KeyedCoding>(_ type: T.Type) -> T? { decodedObject(T.self, at: uid) }
        let name = object.className
        // The class itself, else its nearest superclass the catalogue knows (AppKit's
        // NSTextStorage is an NSMutableAttributedString); the summary keeps the name. Only
        // the first 64 names are looked at: a `$classes` of thousands, shared by many
        // objects, costs no more per object than a real hierarchy.
        var known: CataloguedClass?
        var candidates = object.classChain.prefix(ClassCatalogue.maximumChainLength).makeIterator()
        var candidate: String? = name
        while let current = candidate {
            if let catalogued = CataloguedClass(name: current) {
                if catalogued.kind.isFoundation {
                    return foundationSummary(of: catalogued, named: name, at: uid)
                }
                known = catalogued
                break
            }
            candidate = candidates.next()
        }
        guard let known else { return nil }
        switch known.kind {
        case .attributedString:
            guard let text = decoded(ArchivedAttributedString.self) else { return nil }
            var runs: [PropertyList] = []
            var details: [String] = []
            for run in text.runs {
                var attributes = PropertyListDictionary()
                for key in run.attributes.keys.sorted() {
                    attributes[key] = run.attributes[key].map { .string($0.description) }
                }
                let piece = text.text(in: run.range) ?? ""
                runs.append([
                    "range": [
                        .integer(PropertyListInteger(Int64(run.range.lowerBound))),
                        .integer(PropertyListInteger(Int64(run.range.upperBound))),
                    ],
                    "text": .string(piece), "attributes": .dictionary(attributes),
                ])
                let listed = run.attributes.keys.sorted().compactMap { key in
                    run.attributes[key].map { "\(key) = \($0)" }
                }
                let head =
                    "\(run.range.lowerBound)..<\(run.range.upperBound) \(DisplayText.quoted(piece, maximumScalars: 40))"
                details.append(listed.isEmpty ? head : "\(head) \(listed.joined(separator: "; "))")
            }
            return Summary(
                className: name, text: DisplayText.quoted(text.string, maximumScalars: 200), details: details,
                value: ["string": .string(text.string), "runs": .array(runs)])
        case .color:
            guard let color = decoded(ArchivedColor.self) else { return nil }
            var value: PropertyListDictionary = ["text": .string(color.description)]
            if let space = color.space { value["space"] = .string(space.description) }
            if !color.components.isEmpty {
                value["components"] = .array(color.components.map(PropertyList.real))
            }
            if let hex = color.hexString { value["hex"] = .string(hex) }
            if let catalog = color.catalogName { value["catalog"] = .string(catalog) }
            if let colorName = color.colorName { value["name"] = .string(colorName) }
            return Summary(className: name, text: color.description, details: [], value: .dictionary(value))
        case .font:
            guard let font = decoded(ArchivedFont.self) else { return nil }
            var value: PropertyListDictionary = ["name": .string(font.name), "size": .real(font.size)]
            if let flags = font.flags { value["flags"] = .integer(PropertyListInteger(Int64(flags))) }
            return Summary(className: name, text: font.description, details: [], value: .dictionary(value))
        case .indexSet:
            guard let set = decoded(ArchivedIndexSet.self) else { return nil }
            let ranges = set.ranges.map { range -> PropertyList in
                [
                    .integer(PropertyListInteger(Int64(range.lowerBound))),
                    .integer(PropertyListInteger(Int64(range.upperBound))),
                ]
            }
            return Summary(
                className: name, text: set.description, details: [], value: ["ranges": .array(ranges)])
        case .indexPath:
            guard let path = decoded(IndexPath.self) else { return nil }
            let text = "[" + path.map(String.init).joined(separator: ", ") + "]"
            let indices = path.map { PropertyList.integer(PropertyListInteger(Int64($0))) }
            return Summary(className: name, text: text, details: [], value: ["indexes": .array(indices)])
        case .decimalNumber:
            guard let decimal = decoded(Decimal.self) else { return nil }
            let text = decimal.isNaN ? "NaN" : "\(decimal)"
            return Summary(className: name, text: text, details: [], value: ["decimal": .string(text)])
        case .locale:
            guard let locale = decoded(Locale.self) else { return nil }
            return Summary(
                className: name, text: locale.identifier, details: [],
                value: ["identifier": .string(locale.identifier)])
        case .timeZone:
            guard let zone = decoded(TimeZone.self) else { return nil }
            return Summary(
                className: name, text: zone.identifier, details: [],
                value: ["identifier": .string(zone.identifier)])
        case .measurement:
            guard let measurement = decoded(ArchivedMeasurement.self) else { return nil }
            return Summary(
                className: name, text: measurement.description, details: [],
                value: ["value": .real(measurement.value), "symbol": .string(measurement.unit.symbol)])
        case .paragraphStyle:
            var style = ArchivedParagraphStyle(isMutable: name == CataloguedClass.mutableParagraphStyle.name)
            if object.fields.contains(where: { $0.key.hasPrefix("$") }) {
                // A typedstream's style: its values unnamed ($0, $1, …, not repeated here),
                // and the numbers its reader adds under the keyed names.
                for field in object.fields where !field.key.hasPrefix("$") {
                    switch field.value {
                    case .integer(let number): style.fields[field.key] = number.intValue.map { .integer($0) }
                    case .real(let number): style.fields[field.key] = .real(number)
                    default: break
                    }
                }
            } else {
                guard let keyed = decoded(ArchivedParagraphStyle.self) else { return nil }
                style = keyed
            }
            return Summary(
                className: name, text: style.description, details: [],
                value: ["text": .string(style.description)])
        case .error:
            guard let error = decoded(ArchivedError.self) else { return nil }
            return Summary(
                className: name, text: error.description, details: [],
                value: [
                    "domain": .string(error.domain), "code": .integer(PropertyListInteger(Int64(error.code))),
                ])
        case .affineTransform:
            guard let transform = decoded(ArchivedAffineTransform.self) else { return nil }
            let matrix = [
                transform.m11, transform.m12, transform.m21, transform.m22, transform.tX, transform.tY,
            ]
            return Summary(
                className: name, text: transform.description, details: [],
                value: ["matrix": .array(matrix.map(PropertyList.real))])
        case .dateComponents:
            guard let components = decoded(ArchivedDateComponents.self) else { return nil }
            var value = PropertyListDictionary()
            for component in ArchivedDateComponents.Component.allCases {
                if let number = components[component] {
                    value[component.name] = .integer(PropertyListInteger(Int64(number)))
                }
            }
            if let zone = components.timeZone { value["timeZone"] = .string(zone.identifier) }
            if let calendar = components.calendarIdentifier { value["calendar"] = .string(calendar) }
            return Summary(
                className: name, text: components.description, details: [], value: .dictionary(value))
        case .personNameComponents:
            guard let person = decoded(ArchivedPersonNameComponents.self) else { return nil }
            var value = PropertyListDictionary()
            for part in ArchivedPersonNameComponents.Part.allCases {
                if let text = person[part] { value[String(describing: part)] = .string(text) }
            }
            return Summary(className: name, text: person.description, details: [], value: .dictionary(value))
        case .textCheckingResult:
            guard let result = decoded(ArchivedTextCheckingResult.self) else { return nil }
            func pair(_ range: Range<Int>) -> PropertyList {
                [
                    .integer(PropertyListInteger(Int64(range.lowerBound))),
                    .integer(PropertyListInteger(Int64(range.upperBound))),
                ]
            }
            var value: PropertyListDictionary = ["ranges": .array(result.ranges.map(pair))]
            if let range = result.range { value["range"] = pair(range) }
            if let pattern = result.pattern { value["pattern"] = .string(pattern) }
            return Summary(className: name, text: result.description, details: [], value: .dictionary(value))
        case .formatter:
            guard let formatter = decoded(ArchivedFormatter.self) else { return nil }
            let settings = formatter.settings
            return Summary(
                className: name, text: settings.isEmpty ? "no settings" : settings, details: [],
                value: ["text": .string(settings)])
        case .urlRequest:
            guard let request = decoded(ArchivedURLRequest.self) else { return nil }
            var value: PropertyListDictionary = [:]
            if let url = request.url { value["url"] = .string(url.absoluteString) }
            if let method = request.httpMethod { value["method"] = .string(method) }
            let headers = request.headerFields
            if !headers.isEmpty {
                value["headers"] = .dictionary(
                    PropertyListDictionary(
                        headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            }
            if let body = request.body { value["body"] = .data(body) }
            if let timeout = request.timeoutInterval { value["timeout"] = .real(timeout) }
            if let policy = request.cachePolicy {
                value["cachePolicy"] = .integer(PropertyListInteger(Int64(policy)))
            }
            if let main = request.mainDocumentURL { value["mainDocumentURL"] = .string(main.absoluteString) }
            return Summary(
                className: name, text: request.description,
                details: headers.keys.sorted().compactMap { key in headers[key].map { "\(key): \($0)" } },
                value: .dictionary(value))
        case .urlResponse:
            guard let response = decoded(ArchivedURLResponse.self) else { return nil }
            var value: PropertyListDictionary = [:]
            if let status = response.statusCode {
                value["status"] = .integer(PropertyListInteger(Int64(status)))
            }
            if let url = response.url { value["url"] = .string(url.absoluteString) }
            if let type = response.mimeType { value["mimeType"] = .string(type) }
            let headers = response.headerFields
            if !headers.isEmpty {
                value["headers"] = .dictionary(
                    PropertyListDictionary(
                        headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            }
            return Summary(
                className: name, text: response.description,
                details: headers.keys.sorted().compactMap { key in headers[key].map { "\(key): \($0)" } },
                value: .dictionary(value))
        default:
            return nil
        }
    }

    /// The summary of an object of one of the classes keyed archives are built from whose
    /// fields say less than their value: a URL as its absolute string, a UUID as its text,
    /// a date in ISO 8601. Strings, numbers, data and collections are shown as they are.
    private func foundationSummary(of known: CataloguedClass, named name: String, at uid: Int) -> Summary? {
        switch known.kind {
        case .url:
            guard let url = decodedObject(URL.self, at: uid) else { return nil }
            var value: PropertyListDictionary = ["url": .string(url.absoluteString)]
            if let base = url.baseURL {
                value["base"] = .string(base.absoluteString)
                value["relative"] = .string(url.relativeString)
            }
            return Summary(
                className: name, text: url.absoluteString, details: [], value: .dictionary(value))
        case .uuid:
            guard let uuid = decodedObject(UUID.self, at: uid) else { return nil }
            return Summary(
                className: name, text: uuid.uuidString, details: [], value: ["uuid": .string(uuid.uuidString)]
            )
        case .date:
            guard let date = decodedObject(Date.self, at: uid) else { return nil }
            let seconds = date.timeIntervalSinceReferenceDate
            return Summary(
                className: name, text: ISO8601Date.format(seconds), details: [],
                value: ["date": .string(ISO8601Date.format(seconds)), "seconds": .real(seconds)])
        default:
            return nil
        }
    }

    /// Object `uid` decoded as `T` through an archive of its own, securely; `nil` when it
    /// does not decode or reaches more than ``largestSummarizedObject`` objects.
    private func decodedObject<T: KeyedCoding>(_ type: T.Type, at uid: Int) -> T? {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        // Bounded, so that summarizing every object of a hostile archive stays linear.
        let reference = archiver.graphReference(
            self, uid: uid, at: .key(KeyedArchiver.rootObjectKey),
            maximumObjects: Self.largestSummarizedObject)
        archiver.append(
            key: KeyedArchiver.rootObjectKey, value: archiver.table.builder.addUID(UInt64(reference)))
        guard let data = try? archiver.finishedData() else { return nil }
        return try? KeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
    }
}
