/// A hashable, sendable value of a type that the module holding it cannot name.
///
/// A lower module stores it for a value whose type belongs to an upper one: an
/// `ArchivedParagraphStyle` (Apple's classes) keeps the typedstream layout it was read in,
/// a type of the typedstream module above it, which exposes it again as a typed property.
/// Two opaque values are equal when they hold equal values of the same type.
package struct OpaqueValue: Hashable, Sendable {
    /// The value held.
    package let value: any Hashable & Sendable

    /// Holds `value`.
    package init(_ value: any Hashable & Sendable) {
        self.value = value
    }

    package static func == (lhs: OpaqueValue, rhs: OpaqueValue) -> Bool {
        AnyHashable(lhs.value) == AnyHashable(rhs.value)
    }

    package func hash(into hasher: inout Hasher) {
        AnyHashable(value).hash(into: &hasher)
    }
}
