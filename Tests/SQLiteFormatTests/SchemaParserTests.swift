import Testing

@testable import SQLiteFormat

@Suite("CREATE TABLE statements")
struct SchemaParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var sql: String
        var names: [String]
        var alias: String?
        var withoutRowID = false
        var primaryKey: [String] = []
        var testDescription: String { sql }
    }

    @Test(
        "column names, rowid alias, primary key",
        arguments: [
            Case(sql: "CREATE TABLE t (a, b, c)", names: ["a", "b", "c"]),
            Case(
                sql: #"CREATE TABLE "t" ("we""ird" TEXT, [sq br] INT, `back``tick` BLOB, 'str' REAL)"#,
                names: [#"we"ird"#, "sq br", "back`tick", "str"]),
            Case(
                sql: "CREATE TABLE m (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, x)",
                names: ["ROWID", "guid", "x"], alias: "ROWID", primaryKey: ["ROWID"]),
            Case(
                sql: "CREATE TABLE d (id INTEGER PRIMARY KEY DESC, v)", names: ["id", "v"], alias: nil,
                primaryKey: ["id"]),
            Case(
                sql: "CREATE TABLE i (id INT PRIMARY KEY, v)", names: ["id", "v"], alias: nil,
                primaryKey: ["id"]),
            Case(
                sql: "CREATE TABLE p (a TEXT, id integer, CONSTRAINT k PRIMARY KEY (id DESC))",
                names: ["a", "id"],
                alias: "id", primaryKey: ["id"]),
            Case(
                sql: "CREATE TABLE w (a TEXT, b INT, c BLOB, PRIMARY KEY (b, a)) WITHOUT ROWID",
                names: ["a", "b", "c"], withoutRowID: true, primaryKey: ["b", "a"]),
            Case(
                sql: """
                    CREATE TABLE z -- a comment (with parentheses)
                    ( /* before */ n VARCHAR(10, 2) DEFAULT (-1) CHECK (n > 0 AND n < 5), "o" NUMERIC(3),
                      FOREIGN KEY (n) REFERENCES y(n) ON DELETE CASCADE )
                    """, names: ["n", "o"]),
        ])
    func columns(_ test: Case) throws {
        let table = try SchemaParser.table(name: "t", rootPage: 2, sql: test.sql)
        #expect(table.columns.map(\.name) == test.names)
        #expect(table.columns.first(where: \.isRowIDAlias)?.name == test.alias)
        #expect(table.withoutRowID == test.withoutRowID)
        #expect(table.primaryKey.map { table.columns[$0].name } == test.primaryKey)
    }

    @Test("defaults take the column's affinity")
    func defaults() throws {
        let table = try SchemaParser.table(
            name: "t", rootPage: 2,
            sql:
                "CREATE TABLE t (a TEXT DEFAULT 'x''y', b INTEGER DEFAULT '12', c REAL DEFAULT 3, d DEFAULT -5, "
                + "e BLOB DEFAULT x'0aFF', f DEFAULT NULL, g TEXT DEFAULT 7, h DEFAULT TRUE)")
        #expect(
            table.columns.map(\.defaultValue) == [
                .text("x'y"), .integer(12), .real(3), .integer(-5), .blob(.init([0x0a, 0xff])), .null,
                .text("7"),
                .integer(1),
            ])
    }

    @Test("generated columns: virtual ones are not stored")
    func generated() throws {
        let table = try SchemaParser.table(
            name: "t", rootPage: 2,
            sql: "CREATE TABLE t (a INT, b AS (a * 2), c INT GENERATED ALWAYS AS (a + 1) STORED, d TEXT)")
        #expect(table.columns.map(\.isVirtual) == [false, true, false, false])
        #expect(table.storageIndex == [0, nil, 1, 2])
    }

    @Test("a statement without a column list is refused")
    func noColumns() {
        #expect(throws: SQLiteError.self) {
            try SchemaParser.table(name: "t", rootPage: 2, sql: "CREATE TABLE t")
        }
    }
}
