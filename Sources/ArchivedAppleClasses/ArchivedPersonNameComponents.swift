#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A person's name as Foundation's `NSPersonNameComponents` archives it: `NS.namePrefix`,
/// `NS.givenName`, `NS.middleName`, `NS.familyName`, `NS.nameSuffix`, `NS.nickname` (strings,
/// nil references when unset) and `NS.phoneticRepresentation` (another name).
///
/// ```swift
/// var name = ArchivedPersonNameComponents()
/// name[.givenName] = "Ada"
/// name[.familyName] = "Lovelace"
/// let data = try KeyedArchiver.archivedData(withRootObject: name, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: data)
/// print(copy?.description ?? "")   // Ada Lovelace
/// ```
///
/// Recent systems keep the parts in a private object under `NS.nameComponentsPrivate`; its
/// parts are read too. Every field is kept in ``fields`` and written back as read.
public struct ArchivedPersonNameComponents: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// A part of a name and the key Apple archives it under.
    public enum Part: String, CaseIterable, Sendable {
        /// `NS.namePrefix`.
        case namePrefix = "NS.namePrefix"
        /// `NS.givenName`.
        case givenName = "NS.givenName"
        /// `NS.middleName`.
        case middleName = "NS.middleName"
        /// `NS.familyName`.
        case familyName = "NS.familyName"
        /// `NS.nameSuffix`.
        case nameSuffix = "NS.nameSuffix"
        /// `NS.nickname`.
        case nickname = "NS.nickname"
    }

    /// Every field of the archived object by key.
    public var fields: [String: ArchivedAttributeValue]

    /// Creates an empty name: every part nil (written as nil references, which Apple's
    /// reader takes as unset and swift-corelibs-foundation's requires).
    public init() {
        fields = Dictionary(
            uniqueKeysWithValues: Part.allCases.map { ($0.rawValue, ArchivedAttributeValue.null) })
    }

    /// Creates a name from its archived fields.
    ///
    /// - Parameter fields: The fields, under Apple's keys.
    public init(fields: [String: ArchivedAttributeValue]) {
        self.fields = fields
    }

    /// `NSPersonNameComponents`.
    public static var archivedClassName: String { CataloguedClass.personNameComponents.name }

    /// The part `part`, or `nil` when unset; setting `nil` stores a nil reference.
    public subscript(part: Part) -> String? {
        get {
            if let text = fields[part.rawValue]?.stringValue { return text }
            return privatePart(part.rawValue)
        }
        set { fields[part.rawValue] = newValue.map(ArchivedAttributeValue.string) ?? .null }
    }

    /// A string field of the private object under `NS.nameComponentsPrivate`.
    private func privatePart(_ key: String) -> String? {
        fields["NS.nameComponentsPrivate"]?.objectString(key)
    }

    /// The phonetic representation (`NS.phoneticRepresentation`).
    public var phoneticRepresentation: ArchivedPersonNameComponents? {
        get { fields["NS.phoneticRepresentation"]?.decodedObject(as: ArchivedPersonNameComponents.self) }
        set {
            fields["NS.phoneticRepresentation"] = newValue.flatMap(ArchivedAttributeValue.archivedObject)
        }
    }

    /// The parts in Western order (prefix, given, middle, family, suffix), then the
    /// nickname in quotes.
    public var description: String {
        var words = [Part.namePrefix, .givenName, .middleName, .familyName, .nameSuffix].compactMap {
            self[$0]
        }
        if let nickname = self[.nickname] { words.append(DisplayText.quoted(nickname)) }
        return words.isEmpty ? "no name" : words.joined(separator: " ")
    }

    /// Writes every field.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    /// Reads an `NSPersonNameComponents`, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        fields = try coder.keptFields()
    }
}

extension ArchivedPersonNameComponents: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .personNameComponents) }
}
