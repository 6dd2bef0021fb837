import Foundation
import KeyedArchive

extension ArchivedPersonNameComponents {
    /// The name as Foundation's `PersonNameComponents` (with its phonetic representation).
    public var personNameComponents: PersonNameComponents {
        var result = PersonNameComponents()
        result.namePrefix = self[.namePrefix]
        result.givenName = self[.givenName]
        result.middleName = self[.middleName]
        result.familyName = self[.familyName]
        result.nameSuffix = self[.nameSuffix]
        result.nickname = self[.nickname]
        result.phoneticRepresentation = phoneticRepresentation?.personNameComponents
        return result
    }

    /// Creates an archived name from Foundation's `PersonNameComponents`.
    ///
    /// - Parameter components: The name.
    public init(_ components: PersonNameComponents) {
        self.init()
        self[.namePrefix] = components.namePrefix
        self[.givenName] = components.givenName
        self[.middleName] = components.middleName
        self[.familyName] = components.familyName
        self[.nameSuffix] = components.nameSuffix
        self[.nickname] = components.nickname
        phoneticRepresentation = components.phoneticRepresentation.map(ArchivedPersonNameComponents.init)
    }
}
