/// The one error type thrown by every API in this package.
///
/// An error carries a ``code`` to branch on, a ``message`` written for humans, and a
/// ``location`` that says where the problem is: a byte offset in a binary property list,
/// a line and column in a text property list, or a key path through an archived object
/// graph (`root.creatures[3].Title`).
///
/// ```swift
/// do {
///     _ = try PropertyList(from: Data("<plist><integer>x</integer></plist>".utf8))
/// } catch let error as KeyedArchiveError {
///     print(error.code)        // corruptData
///     print(error)             // line 1, column 17: invalid integer "x"
/// }
/// ```
///
/// New codes may be added in later versions; switch over them with a `default` case.
public struct KeyedArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure happened.
    public var code: Code
    /// A description of the problem, written for humans, without the location.
    public var message: String
    /// Where in the input (or the object graph) the problem was found, when known.
    public var location: Location?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure happened.
    ///   - message: A description of the problem for humans.
    ///   - location: Where the problem was found, if known.
    public init(_ code: Code, _ message: String, at location: Location? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    /// The location followed by the message, for example
    /// `byte 42: object reference 9 is out of range (3 objects)`.
    public var description: String {
        guard let location else { return message }
        return "\(location): \(message)"
    }

    /// Where a problem was found.
    public enum Location: Hashable, Sendable, CustomStringConvertible {
        /// A byte offset from the start of a binary input.
        case byteOffset(Int)
        /// A one-based line and column (in characters) of a text input.
        case text(line: Int, column: Int)
        /// A path through an archived object graph, such as `root.creatures[3].Title`.
        case keyPath(String)

        /// The location in words: `byte 42`, `line 3, column 7`, or the key path itself.
        public var description: String {
            switch self {
            case .byteOffset(let offset): return "byte \(offset)"
            case .text(let line, let column): return "line \(line), column \(column)"
            case .keyPath(let path): return path
            }
        }
    }

    /// A kind of failure. Compare against the static members; new ones may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case corruptData
            case unsupportedFormat
            case limitExceeded
            case typeMismatch
            case valueOutOfRange
            case invalidArchive
            case classNotAllowed
            case classNotFound
            case unresolvableCycle
            case invalidValue
            case fileOperationFailed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The bytes are not a well-formed property list of the expected format.
        public static let corruptData = Code(.corruptData)
        /// The input is in a format, or uses a feature, that this package does not handle
        /// (for example entity declarations in XML, or writing OpenStep).
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A configured limit (nesting depth, object count, expansion) was reached.
        public static let limitExceeded = Code(.limitExceeded)
        /// A value has a different type from the one requested.
        public static let typeMismatch = Code(.typeMismatch)
        /// A number does not fit in the requested type.
        public static let valueOutOfRange = Code(.valueOutOfRange)
        /// The property list is well-formed but is not a valid keyed archive.
        public static let invalidArchive = Code(.invalidArchive)
        /// Secure decoding refused a class that is not in the allowed set.
        public static let classNotAllowed = Code(.classNotAllowed)
        /// An archived class name maps to no known type.
        public static let classNotFound = Code(.classNotFound)
        /// An object graph contains a reference cycle that cannot be represented.
        public static let unresolvableCycle = Code(.unresolvableCycle)
        /// A value cannot be written in the requested format.
        public static let invalidValue = Code(.invalidValue)
        /// Reading or writing a file failed.
        public static let fileOperationFailed = Code(.fileOperationFailed)

        /// The code's name, such as `corruptData`.
        public var description: String { base.rawValue }
    }
}
