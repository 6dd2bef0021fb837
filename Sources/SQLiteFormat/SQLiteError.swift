/// An error reading an SQLite database: what went wrong and where.
///
/// Every error names the place it was found: the file (the database, its `-wal` or its
/// `-journal`), the page and the byte offset within the page (or within the file when no
/// page applies). Its ``description`` reads, for example,
/// `page 17, offset 3012: cell of 70000 bytes extends past the end of the page (4096 bytes)`.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of an ``SQLiteError``, for code that reacts to some kinds differently.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as in the ``description``.
        public let rawValue: String

        /// The file could not be opened or read (the system's reason is in the message).
        public static let io = Code(rawValue: "io")
        /// The file does not start with the SQLite header, or the header is invalid.
        public static let notADatabase = Code(rawValue: "notADatabase")
        /// The file ends before a page or a structure it must hold.
        public static let truncated = Code(rawValue: "truncated")
        /// A page, a cell or a record contradicts the file format.
        public static let corrupt = Code(rawValue: "corrupt")
        /// A page is reached twice: a loop in a b-tree, an overflow chain or the freelist.
        public static let loop = Code(rawValue: "loop")
        /// The `-wal` file's header or a frame is invalid (the WAL, or the frames from there
        /// on, are then ignored, as SQLite ignores them).
        public static let walInvalid = Code(rawValue: "walInvalid")
        /// The `-journal` file is invalid and was not applied.
        public static let journalInvalid = Code(rawValue: "journalInvalid")
        /// The schema has no table of the name asked for.
        public static let noSuchTable = Code(rawValue: "noSuchTable")
        /// A `CREATE TABLE` statement in the schema could not be understood.
        public static let schema = Code(rawValue: "schema")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// The file an error was found in.
    public enum File: String, Sendable, Equatable {
        /// The database file itself.
        case database
        /// The write-ahead log, `DATABASE-wal`.
        case wal
        /// The rollback journal, `DATABASE-journal`.
        case journal
    }

    /// What kind of error this is.
    public let code: Code
    /// What went wrong, written for people, without the location.
    public let message: String
    /// The file the error was found in.
    public let file: File
    /// The page number (1-based), when the error concerns a page.
    public let page: UInt32?
    /// The byte offset: within ``page`` when there is one, else within ``file``.
    public let offset: Int?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of error.
    ///   - message: What went wrong.
    ///   - file: The file it was found in.
    ///   - page: The page, if any.
    ///   - offset: The byte offset within the page, or within the file without a page.
    public init(
        _ code: Code, _ message: String, file: File = .database, page: UInt32? = nil, offset: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.page = page
        self.offset = offset
    }

    /// The location and the message: `-wal: page 3, offset 8: …`.
    public var description: String {
        var location: [String] = []
        if file != .database { location.append("-\(file.rawValue)") }
        if let page { location.append("page \(page)") }
        if let offset { location.append("offset \(offset)") }
        return location.isEmpty ? message : location.joined(separator: ", ") + ": " + message
    }
}
