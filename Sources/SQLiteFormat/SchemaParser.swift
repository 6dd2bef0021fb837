#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the column definitions out of a `CREATE TABLE` statement: names (bare or quoted
/// with `"x"`, `[x]`, `` `x` `` or `'x'`), declared types, `PRIMARY KEY` (column or table
/// constraint), `DEFAULT` values, generated columns, and the `WITHOUT ROWID` option.
enum SchemaParser {
    enum Token: Equatable {
        /// A bare word (keyword or identifier), as written.
        case word(String)
        /// A quoted identifier (`"x"`, `[x]`, `` `x` ``), unquoted.
        case quoted(String)
        /// A string literal (`'x'`), unquoted.
        case string(String)
        /// A number as written.
        case number(String)
        /// A blob literal `X'…'`: its hex digits.
        case blob(String)
        /// Any other character: `(`, `)`, `,`, `-`, `+`, `;`, …
        case symbol(Character)

        /// The word uppercased, or nil.
        var keyword: String? {
            if case .word(let word) = self { return word.uppercased() }
            return nil
        }

        /// The name this token gives when it stands for an identifier.
        var identifier: String? {
            switch self {
            case .word(let text), .quoted(let text), .string(let text): return text
            default: return nil
            }
        }
    }

    static func tokens(_ sql: String) -> [Token] {
        let characters = Array(sql.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        func quoted(until close: Unicode.Scalar) -> String {
            var text = String.UnicodeScalarView()
            index += 1
            while index < characters.count {
                let character = characters[index]
                index += 1
                if character == close {
                    // A doubled closing quote stands for itself (not for `]`).
                    if close != "]", index < characters.count, characters[index] == close {
                        text.append(close)
                        index += 1
                        continue
                    }
                    break
                }
                text.append(character)
            }
            return String(text)
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case " ", "\t", "\n", "\r", "\u{0C}":
                index += 1
            case "-" where index + 1 < characters.count && characters[index + 1] == "-":
                while index < characters.count && characters[index] != "\n" { index += 1 }
            case "/" where index + 1 < characters.count && characters[index + 1] == "*":
                index += 2
                while index < characters.count
                    && !(characters[index] == "*" && index + 1 < characters.count
                        && characters[index + 1] == "/")
                {
                    index += 1
                }
                index += 2
            case "\"": tokens.append(.quoted(quoted(until: "\"")))
            case "`": tokens.append(.quoted(quoted(until: "`")))
            case "[": tokens.append(.quoted(quoted(until: "]")))
            case "'": tokens.append(.string(quoted(until: "'")))
            case "x" where index + 1 < characters.count && characters[index + 1] == "'",
                "X" where index + 1 < characters.count && characters[index + 1] == "'":
                index += 1
                tokens.append(.blob(quoted(until: "'")))
            case "0"..."9", ".":
                var text = String.UnicodeScalarView()
                while index < characters.count {
                    let scalar = characters[index]
                    let isExponentSign =
                        (scalar == "+" || scalar == "-") && !text.isEmpty
                        && (text.last == "e" || text.last == "E")
                    guard
                        scalar.properties.isASCIIHexDigit || scalar == "." || scalar == "x" || scalar == "X"
                            || isExponentSign
                    else { break }
                    text.append(scalar)
                    index += 1
                }
                tokens.append(.number(String(text)))
            default:
                if character == "_" || character == "$" || character.properties.isAlphabetic
                    || character.value >= 0x80
                {
                    var text = String.UnicodeScalarView()
                    while index < characters.count {
                        let scalar = characters[index]
                        guard
                            scalar == "_" || scalar == "$" || scalar.properties.isAlphabetic
                                || scalar.value >= 0x80
                                || ("0"..."9").contains(scalar)
                        else { break }
                        text.append(scalar)
                        index += 1
                    }
                    tokens.append(.word(String(text)))
                } else {
                    tokens.append(.symbol(Character(character)))
                    index += 1
                }
            }
        }
        return tokens
    }

    /// The table described by `sql`, with `name` and `rootPage` from the schema row.
    ///
    /// - Throws: ``SQLiteError/Code/schema`` when no column list is found.
    static func table(name: String, rootPage: UInt32, sql: String) throws(SQLiteError) -> SQLiteTable {
        let tokens = tokens(sql)
        guard let open = tokens.firstIndex(of: .symbol("(")) else {
            throw SQLiteError(.schema, "no column list in the schema's statement for table \(name): \(sql)")
        }
        // The top-level elements between the outer parentheses.
        var elements: [[Token]] = [[]]
        var depth = 0
        var index = open + 1
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if token == .symbol("(") { depth += 1 }
            if token == .symbol(")") {
                if depth == 0 { break }
                depth -= 1
            }
            if token == .symbol(","), depth == 0 {
                elements.append([])
                continue
            }
            elements[elements.count - 1].append(token)
        }
        let options = tokens[index...].compactMap(\.keyword)
        var withoutRowID = false
        for position in options.indices.dropLast()
        where options[position] == "WITHOUT" && options[position + 1] == "ROWID" {
            withoutRowID = true
        }

        var columns: [SQLiteTable.Column] = []
        var primaryKey: [String] = []
        var columnPrimaryKeyDescending = false
        let tableConstraints: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
        for element in elements where !element.isEmpty {
            if let keyword = element[0].keyword, tableConstraints.contains(keyword) {
                if let primary = element.firstIndex(where: { $0.keyword == "PRIMARY" }),
                    let open = element[primary...].firstIndex(of: .symbol("("))
                {
                    primaryKey = indexedColumnNames(element, from: open + 1)
                }
                continue
            }
            guard let columnName = element[0].identifier else { continue }
            var column = SQLiteTable.Column(name: columnName)
            var position = 1
            var typeWords: [String] = []
            let constraintStarts: Set<String> = [
                "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES",
                "GENERATED", "AS",
            ]
            // The type: words, then optionally `(n)` or `(n, m)`.
            while position < element.count {
                if let keyword = element[position].keyword, constraintStarts.contains(keyword) { break }
                if let word = element[position].identifier {
                    typeWords.append(word)
                    position += 1
                } else if element[position] == .symbol("(") {
                    var text = "("
                    position += 1
                    while position < element.count, element[position] != .symbol(")") {
                        text += tokenText(element[position])
                        position += 1
                    }
                    position += 1
                    if typeWords.isEmpty {
                        typeWords.append(text + ")")
                    } else {
                        typeWords[typeWords.count - 1] += text + ")"
                    }
                    break
                } else {
                    break
                }
            }
            column.declaredType = typeWords.joined(separator: " ")
            var isPrimaryKey = false
            while position < element.count {
                switch element[position].keyword {
                case "PRIMARY":
                    isPrimaryKey = true
                    if position + 2 < element.count, element[position + 2].keyword == "DESC" {
                        columnPrimaryKeyDescending = true
                    }
                    position += 2
                case "DEFAULT":
                    position += 1
                    column.defaultValue = defaultValue(element, at: &position)
                case "AS":
                    // `[GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED]`: virtual unless stored.
                    column.isVirtual = true
                    position += 1
                    if position < element.count, element[position] == .symbol("(") {
                        var nesting = 0
                        repeat {
                            if element[position] == .symbol("(") { nesting += 1 }
                            if element[position] == .symbol(")") { nesting -= 1 }
                            position += 1
                        } while position < element.count && nesting > 0
                    }
                case "STORED":
                    column.isVirtual = false
                    position += 1
                default:
                    position += 1
                }
            }
            if isPrimaryKey { primaryKey = [column.name] }
            column.defaultValue = applyAffinity(column.defaultValue, type: column.declaredType)
            columns.append(column)
        }
        guard !columns.isEmpty else {
            throw SQLiteError(.schema, "no columns in the schema's statement for table \(name): \(sql)")
        }
        let keyIndices = primaryKey.compactMap { key in
            columns.firstIndex { $0.name.lowercased() == key.lowercased() }
        }
        if !withoutRowID, keyIndices.count == 1,
            columns[keyIndices[0]].declaredType.uppercased() == "INTEGER",
            !columnPrimaryKeyDescending
        {
            columns[keyIndices[0]].isRowIDAlias = true
        }
        return SQLiteTable(
            name: name, columns: columns, rootPage: rootPage, withoutRowID: withoutRowID,
            primaryKey: keyIndices,
            sql: sql)
    }

    /// The column names of `PRIMARY KEY (a, b COLLATE x DESC)` from just after `(`.
    private static func indexedColumnNames(_ element: [Token], from start: Int) -> [String] {
        var names: [String] = []
        var expectName = true
        var depth = 0
        var position = start
        while position < element.count {
            let token = element[position]
            position += 1
            if token == .symbol("(") { depth += 1 }
            if token == .symbol(")") {
                if depth == 0 { break }
                depth -= 1
            }
            if depth == 0, token == .symbol(",") {
                expectName = true
                continue
            }
            if expectName, depth == 0, let name = token.identifier {
                names.append(name)
                expectName = false
            }
        }
        return names
    }

    private static func tokenText(_ token: Token) -> String {
        switch token {
        case .word(let text), .number(let text): return text
        case .quoted(let text): return "\"\(text)\""
        case .string(let text): return "'\(text)'"
        case .blob(let text): return "X'\(text)'"
        case .symbol(let character): return String(character)
        }
    }

    /// A `DEFAULT` value: a literal, a signed number, or a parenthesized literal.
    private static func defaultValue(_ element: [Token], at position: inout Int) -> SQLiteValue {
        var negative = false
        var parentheses = 0
        while position < element.count {
            let token = element[position]
            position += 1
            switch token {
            case .symbol("("): parentheses += 1
            case .symbol("-"): negative.toggle()
            case .symbol("+"): break
            case .symbol(")"): return .null
            case .number(let text):
                position += parentheses
                if let value = Int64(text) { return .integer(negative ? -value : value) }
                if text.hasPrefix("0x") || text.hasPrefix("0X"),
                    let value = UInt64(text.dropFirst(2), radix: 16)
                {
                    let signed = Int64(bitPattern: value)
                    return .integer(negative ? -signed : signed)
                }
                if let value = Double(text) { return .real(negative ? -value : value) }
                return .text(text)
            case .string(let text):
                position += parentheses
                return .text(text)
            case .blob(let hex):
                position += parentheses
                var bytes: [UInt8] = []
                var characters = hex.makeIterator()
                while let high = characters.next(), let low = characters.next() {
                    guard let byte = UInt8(String([high, low]), radix: 16) else { return .null }
                    bytes.append(byte)
                }
                return .blob(Data(bytes))
            case .word(let word):
                position += parentheses
                switch word.uppercased() {
                case "NULL": return .null
                case "TRUE": return .integer(1)
                case "FALSE": return .integer(0)
                case "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP": return .null
                default: return .text(word)
                }
            case .quoted(let text):
                position += parentheses
                return .text(text)
            default:
                return .null
            }
        }
        return .null
    }

    /// Whether a declared type gives `REAL` affinity (SQLite's rules, in their order).
    static func hasRealAffinity(_ type: String) -> Bool {
        let upper = type.uppercased()
        if upper.contains("INT") || upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT")
            || upper.contains("BLOB") || upper.isEmpty
        {
            return false
        }
        return upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB")
    }

    /// The affinity a declared type gives, applied to a default value: text that reads as a
    /// number becomes one in a numeric column, a number becomes text in a text column.
    static func applyAffinity(_ value: SQLiteValue, type: String) -> SQLiteValue {
        let upper = type.uppercased()
        if upper.contains("INT") {
            if case .text(let text) = value, let number = Int64(text.trimmingSpaces) {
                return .integer(number)
            }
            if case .real(let real) = value, real == real.rounded(), abs(real) < 9e18 {
                return .integer(Int64(real))
            }
            return value
        }
        if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") {
            switch value {
            case .integer(let number): return .text(String(number))
            default: return value
            }
        }
        if upper.contains("BLOB") || upper.isEmpty { return value }
        if hasRealAffinity(type) {
            if case .integer(let number) = value { return .real(Double(number)) }
            if case .text(let text) = value, let number = Double(text.trimmingSpaces) { return .real(number) }
            return value
        }
        // NUMERIC.
        if case .text(let text) = value {
            if let number = Int64(text.trimmingSpaces) { return .integer(number) }
            if let number = Double(text.trimmingSpaces) { return .real(number) }
        }
        if case .real(let real) = value, real == real.rounded(), abs(real) < 9e18 {
            return .integer(Int64(real))
        }
        return value
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let scalars = unicodeScalars
        let start = scalars.firstIndex { $0 != " " } ?? scalars.endIndex
        let end = scalars.lastIndex { $0 != " " }.map { scalars.index(after: $0) } ?? start
        return Substring(scalars[start..<max(start, end)])
    }
}
