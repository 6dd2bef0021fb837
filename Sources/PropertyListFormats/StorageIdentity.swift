/// The storage of a non-empty array or plain dictionary value: equal identities are the
/// same container, shared, for as long as a value holding that storage is alive.
///
/// The binary reader builds an object referenced from several places once and shares it
/// (``PropertyList`` arrays and dictionaries are copy-on-write), so a 200-byte "bomb"
/// whose objects each refer twice to the next is a few dozen containers in memory but a
/// million values to whoever walks it. A walk that converts or measures the value keys
/// what it has done by this identity and does it once per container.
///
/// The identity is an address: it stays valid only while some value keeps that storage
/// alive (the value being walked, or a copy kept beside the result). Once the storage is
/// freed, another container may get the same address.
package struct StorageIdentity: Hashable {
    let elements: UInt
    let keys: UInt

    /// The identity of an array's or dictionary's storage; `nil` for an empty container
    /// (nothing to share) and for a scalar.
    package init?(_ value: PropertyList) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            self.elements = Self.address(of: elements)
            keys = 0
        case .dictionary(let dictionary) where !dictionary.isEmpty:
            // The key list alone is no identity: the reader shares it between all the
            // dictionaries of one archived class.
            elements = Self.address(of: dictionary.values)
            keys = Self.address(of: dictionary.keys)
        default:
            return nil
        }
    }

    /// The identity of a non-empty array's storage; `nil` for an empty one.
    package init?<Element>(array: [Element]) {
        guard !array.isEmpty else { return nil }
        elements = Self.address(of: array)
        keys = 0
    }

    private static func address<Element>(of array: [Element]) -> UInt {
        array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }
}
