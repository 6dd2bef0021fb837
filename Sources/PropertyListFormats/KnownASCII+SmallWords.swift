import KeyedArchiveSupport

extension KnownASCII {
    /// Whether ``smallWords(_:)`` may be read here: both checks hold, since each covers what
    /// the other does not. Small strings' words hold their bytes in order, zeros after them,
    /// and their length (``SmallText/isAvailable``'s check), and the flag bits that
    /// `smallWords` tests read as they should (``isAvailable``'s). A copy in this module,
    /// read once a key (``KeyPositionTable``) and once a dictionary
    /// (`PropertyListDictionary.areDistinct`).
    static let readsSmallWords = isAvailable && SmallText.isAvailable
}
