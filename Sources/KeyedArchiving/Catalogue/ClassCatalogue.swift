/// What every reader of class chains agrees on, whatever the format.
package enum ClassCatalogue {
    /// The longest class chain (a class and its superclasses) any reader follows: a keyed
    /// archive's `$classes` entry, a typedstream's chain of class records, a resolution
    /// walking up to the nearest catalogued ancestor. Apple's deepest chains are under 10
    /// classes; a longer one is hostile input, and walks bounded by this stay linear.
    package static let maximumChainLength = 64
}
