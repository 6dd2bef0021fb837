import KeyedArchive

/// A creature's title and rating: the part of a creature that is archived, in
/// `Data.plist`, exactly as the tutorial's iOS app archives it.
///
/// The archived class name is the app's (`ScaryCreatures.ScaryCreatureData`), so files
/// move between this example and the iOS app in both directions.
final class ScaryCreatureData: SecureKeyedCoding {
    enum Keys {
        static let title = "Title"
        static let rating = "Rating"
    }

    static var supportsSecureCoding: Bool { true }
    static var archivedClassName: String { "ScaryCreatures.ScaryCreatureData" }

    var title: String
    /// From 1 to 5; the tutorial's rating view shows it as stars. A file can hold any
    /// number here — NaN, an infinity, 1e300 (an infinity once a `Float`), 0 when the key
    /// is missing — so code that shows it checks ``hasValidRating`` first.
    var rating: Float

    /// The ratings the app gives: 1 to 5 stars.
    static let validRatings: ClosedRange<Float> = 1...5

    /// Whether ``rating`` is one the app could have given.
    var hasValidRating: Bool { rating.isFinite && Self.validRatings.contains(rating) }

    /// What is wrong with ``rating``, or `nil` if it is valid: `rating nan is not a number
    /// from 1 to 5`.
    var ratingProblem: String? {
        hasValidRating ? nil : "rating \(rating) is not a number from 1 to 5"
    }

    init(title: String, rating: Float) {
        self.title = title
        self.rating = rating
    }

    /// Writes the secure form: the rating as a number object, as the tutorial's
    /// NSSecureCoding version does with `encode(NSNumber(value: rating), forKey:)`.
    /// (`encode(rating, forKey:)` would store it inline, as Foundation's does, which the
    /// iOS app's `decodeObject(of: NSNumber.self, forKey:)` refuses.)
    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: Keys.title)
        coder.encodeObject(rating, forKey: Keys.rating)
    }

    /// Reads either version of the tutorial app: the NSCoding one stored the rating as an
    /// inline float, the NSSecureCoding one as a number object; `decodeDouble(forKey:)`
    /// reads both (Foundation's reads only the inline one). The rating is read as a
    /// `Double` and narrowed, so that 1e300 shows as an invalid rating (an infinity)
    /// instead of failing the file. (Not `try?` around one form and a fallback: a failed
    /// decode is recorded and fails the whole unarchiving even when caught, as with
    /// Foundation's `setErrorAndReturn` policy.)
    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeObject(of: String.self, forKey: Keys.title) ?? ""
        rating = Float(try coder.decodeDouble(forKey: Keys.rating))
    }
}
