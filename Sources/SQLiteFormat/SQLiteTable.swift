/// A table of the database, as its schema describes it.
public struct SQLiteTable: Sendable, Equatable {
    /// A column of a table.
    public struct Column: Sendable, Equatable {
        /// The column's name, unquoted.
        public var name: String
        /// The declared type as written (`INTEGER`, `VARCHAR(20)`, empty when none).
        public var declaredType: String
        /// Whether this column is an `INTEGER PRIMARY KEY`: an alias of the rowid, stored as
        /// NULL in the record and read as the rowid.
        public var isRowIDAlias: Bool
        /// The `DEFAULT` value: what a row written before an `ALTER TABLE … ADD COLUMN` reads.
        public var defaultValue: SQLiteValue
        /// Whether the column is a `VIRTUAL` generated column (not stored; read as NULL).
        public var isVirtual: Bool

        /// Creates a column description.
        ///
        /// - Parameters:
        ///   - name: The name.
        ///   - declaredType: The declared type.
        ///   - isRowIDAlias: Whether it aliases the rowid.
        ///   - defaultValue: The default value.
        ///   - isVirtual: Whether it is a virtual generated column.
        public init(
            name: String, declaredType: String = "", isRowIDAlias: Bool = false,
            defaultValue: SQLiteValue = .null,
            isVirtual: Bool = false
        ) {
            self.name = name
            self.declaredType = declaredType
            self.isRowIDAlias = isRowIDAlias
            self.defaultValue = defaultValue
            self.isVirtual = isVirtual
        }
    }

    /// The table's name.
    public var name: String
    /// The columns in declaration order.
    public var columns: [Column]
    /// The page number of the root of the table's b-tree.
    public var rootPage: UInt32
    /// Whether the table is `WITHOUT ROWID`: its rows live in the index b-tree of its
    /// primary key, and have no rowid.
    public var withoutRowID: Bool
    /// The indices in ``columns`` of the primary key's columns, in key order (empty for a
    /// rowid table without a declared primary key).
    public var primaryKey: [Int]
    /// The `CREATE TABLE` statement from the schema.
    public var sql: String

    /// For each column, its index in the stored record (nil for virtual columns and the
    /// rowid alias of a rowid table, whose record slot is NULL but still counted).
    var storageIndex: [Int?] = []
    /// Whether each column has `REAL` affinity (an integer read from it becomes a real).
    var realAffinity: [Bool] = []

    /// Creates a table description. Records are read with the columns in this order
    /// (`WITHOUT ROWID` tables: primary key columns first).
    ///
    /// - Parameters:
    ///   - name: The table's name.
    ///   - columns: The columns in declaration order.
    ///   - rootPage: The root page of its b-tree.
    ///   - withoutRowID: Whether it is a `WITHOUT ROWID` table.
    ///   - primaryKey: The primary key's column indices in key order.
    ///   - sql: The `CREATE TABLE` statement.
    public init(
        name: String, columns: [Column], rootPage: UInt32, withoutRowID: Bool = false, primaryKey: [Int] = [],
        sql: String = ""
    ) {
        self.name = name
        self.columns = columns
        self.rootPage = rootPage
        self.withoutRowID = withoutRowID
        self.primaryKey = primaryKey
        self.sql = sql
        computeStorage()
    }

    /// The number of values a full record of this table holds.
    var storedColumnCount: Int { columns.count(where: { !$0.isVirtual }) }

    private mutating func computeStorage() {
        storageIndex = Array(repeating: nil, count: columns.count)
        realAffinity = columns.map { SchemaParser.hasRealAffinity($0.declaredType) }
        if withoutRowID {
            var next = 0
            var seen = Set<Int>()
            for index in primaryKey where index < columns.count && !seen.contains(index) {
                seen.insert(index)
                storageIndex[index] = next
                next += 1
            }
            for index in columns.indices where !seen.contains(index) && !columns[index].isVirtual {
                storageIndex[index] = next
                next += 1
            }
        } else {
            var next = 0
            for index in columns.indices where !columns[index].isVirtual {
                storageIndex[index] = next
                next += 1
            }
        }
    }
}
