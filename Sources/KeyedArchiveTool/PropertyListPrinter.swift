import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The human-readable rendering of `-p`, modelled on `plutil -p`.
///
/// ```
/// {
///   "list" => [
///     0 => 1
///   ]
///   "n" => 5
///   "raw" => {length = 4, bytes = 0x01020304}
///   "root" => UID(1)
///   "when" => 2020-01-02 03:04:05 +0000
/// }
/// ```
///
/// Dictionary keys are sorted by Unicode scalar values; data is shown as CoreFoundation
/// describes it (all bytes up to 24, else the first 16 and the last 8); UIDs as `UID(n)`.
/// Strings are quoted but not escaped, as in `plutil`, except control characters other
/// than newline and tab, and bidirectional controls, which are written `\u{1b}` so that a
/// hostile file cannot drive the terminal or reorder the text around them
/// (`DisplayText.Style.plutil`). Not meant for machine parsing.
enum PropertyListPrinter {
    /// The deepest indentation shown; deeper lines keep it and start with `⋯` and their
    /// level, so that the text grows with the value, not with values × depth.
    static let maximumIndent = 32

    /// Text gathered before it is handed to the output.
    static let chunkSize = 1 << 16

    /// Why printing stopped: the text would have been longer than allowed.
    struct OutputLimitExceeded: Error {
        let limit: Int
    }

    /// Renders a value, ending with a newline.
    ///
    /// - Parameter value: The value to render.
    /// - Returns: The text.
    static func render(_ value: PropertyList) -> String {
        var text = ""
        // No limit: nothing is thrown.
        try? render(value, limit: .max) { text += $0 }
        return text
    }

    /// Renders a value, ending with a newline, handing the text to `output` in pieces of
    /// about ``chunkSize`` bytes as it goes (so it is never held whole), with an explicit
    /// work stack (any depth).
    ///
    /// - Parameters:
    ///   - value: The value to render.
    ///   - limit: The most bytes of text to produce.
    ///   - output: Receives the text in order.
    /// - Throws: ``OutputLimitExceeded`` once the text would pass `limit` bytes; what was
    ///   handed to `output` before stays written. A value whose text is certainly longer
    ///   (``PrintedSize``) is refused before anything is written.
    static func render(_ value: PropertyList, limit: Int, output: (String) -> Void)
        throws(OutputLimitExceeded)
    {
        if limit < .max, PrintedSize.exceeds(limit, value, layout: .plutil) {
            throw OutputLimitExceeded(limit: limit)
        }
        try withoutActuallyEscaping(output) { output throws(OutputLimitExceeded) in
            var formatter = Formatter(limit: limit, output: output)
            try events(of: value) { event throws(OutputLimitExceeded) in try formatter.consume(event) }
            try formatter.finish()
        }
    }

    /// The walk of `value` as the events a binary property list's walk gives (dictionary
    /// entries sorted by key), with an explicit work stack (any depth).
    static func events<Failure: Error>(
        of value: PropertyList, _ visit: (BinaryPropertyListWalk.Event) throws(Failure) -> Void
    ) throws(Failure) {
        var work: [EventWork] = [.value(value)]
        while let item = work.popLast() {
            switch item {
            case .key(let key):
                try visit(.key(key))
            case .end:
                try visit(.end)
            case .value(.array(let elements)):
                try visit(.arrayStart(count: elements.count))
                work.append(.end)
                for element in elements.reversed() { work.append(.value(element)) }
            case .value(.dictionary(let dictionary)):
                try visit(.dictionaryStart(count: dictionary.count))
                work.append(.end)
                for (key, element) in dictionary.sortedByKey.reversed() {
                    work.append(.value(element))
                    work.append(.key(key))
                }
            case .value(let scalar):
                try visit(.scalar(scalar))
            }
        }
    }

    /// What ``events(of:_:)`` has left to walk.
    private enum EventWork {
        case value(PropertyList)
        case key(String)
        case end
    }

    /// Turns the events of one value into the text, ending with a newline, handed to
    /// `output` in pieces of about ``chunkSize`` bytes as it goes (so it is never held whole).
    /// The same for a tree (``events(of:_:)``) and for a binary property list's walk.
    struct Formatter {
        let limit: Int
        let output: (String) -> Void
        private var text = ""
        private var written = 0
        /// The open containers: whether each is an array, and its next element's index.
        private var open: [(isArray: Bool, next: Int)] = []

        init(limit: Int, output: @escaping (String) -> Void) {
            self.limit = limit
            self.output = output
        }

        /// - Throws: ``OutputLimitExceeded`` once the text would pass `limit` bytes; what
        ///   was handed to `output` before stays written.
        mutating func consume(_ event: BinaryPropertyListWalk.Event) throws(OutputLimitExceeded) {
            switch event {
            case .key(let key):
                appendIndent(open.count, to: &text)
                text += DisplayText.quoted(key, style: .plutil)
                text += " => "
            case .scalar(let value):
                startValue()
                appendScalar(value, to: &text)
                text += "\n"
            case .arrayStart:
                startValue()
                text += "[\n"
                open.append((isArray: true, next: 0))
            case .dictionaryStart:
                startValue()
                text += "{\n"
                open.append((isArray: false, next: 0))
            case .end:
                let isArray = open.popLast()?.isArray ?? true
                appendIndent(open.count, to: &text)
                text += isArray ? "]\n" : "}\n"
            }
            try flush(force: false)
        }

        /// Hands over what is left.
        mutating func finish() throws(OutputLimitExceeded) {
            try flush(force: true)
        }

        /// An array element's line starts with its index.
        private mutating func startValue() {
            guard let last = open.indices.last, open[last].isArray else { return }
            appendIndent(open.count, to: &text)
            text += "\(open[last].next) => "
            open[last].next += 1
        }

        private mutating func flush(force: Bool) throws(OutputLimitExceeded) {
            let size = text.utf8.count
            guard force || size >= chunkSize else { return }
            guard written + size <= limit else { throw OutputLimitExceeded(limit: limit) }
            written += size
            if size > 0 { output(text) }
            text = ""
        }
    }

    private static func appendScalar(_ value: PropertyList, to text: inout String) {
        switch value {
        case .string(let string):
            DisplayText.appendQuoted(string, to: &text, style: .plutil)
        case .integer(let integer):
            text += integer.description
        case .real(let real):
            text += RealText.string(real)
        case .bool(let bool):
            text += bool ? "true" : "false"
        case .date(let date):
            text += dateText(date.timeIntervalSinceReferenceDate)
        case .data(let data):
            text += dataText(data)
        case .uid(let uid):
            text += "UID(\(uid))"
        case .array, .dictionary:
            break
        }
    }

    private static func appendIndent(_ level: Int, to text: inout String) {
        // Up to 7 levels "  " repeated makes a small string, the cheapest to append; deeper
        // ones come made (repeating it 32 times cost more than the rest of the line).
        text +=
            level <= 7
            ? String(repeating: "  ", count: level) : Indentation.spaces(2 * min(level, maximumIndent))
        if level > maximumIndent { text += "⋯\(level) " }
    }

    /// CoreFoundation's description of data: `{length = 4, bytes = 0x01020304}`, or for
    /// more than 24 bytes the first 16 and the last 8 around ` ... `.
    static func dataText(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var text = "{length = \(bytes.count), bytes = 0x"
        if bytes.count > 24 {
            appendHex(bytes[0..<16], to: &text)
            text += " ... "
            appendHex(bytes[(bytes.count - 8)...], to: &text)
        } else {
            appendHex(bytes[...], to: &text)
        }
        return text + "}"
    }

    private static func appendHex(_ bytes: ArraySlice<UInt8>, to text: inout String) {
        let digits = Array("0123456789abcdef".unicodeScalars)
        for byte in bytes {
            text.unicodeScalars.append(digits[Int(byte >> 4)])
            text.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
    }

    /// `2020-01-02 03:04:05 +0000` (UTC, whole seconds, as `plutil -p`); a date too far
    /// out to be a calendar date is given in seconds since 2001.
    static func dateText(_ secondsSince2001: Double) -> String {
        guard secondsSince2001.isFinite, abs(secondsSince2001) < 1e15 else {
            return "\(RealText.string(secondsSince2001)) seconds since 2001-01-01 00:00:00 +0000"
        }
        // The library's description of a date is ISO 8601 (`2020-01-02T03:04:05Z`):
        // reuse its calendar arithmetic and respell it as plutil does.
        let iso = PropertyList.date(Date(timeIntervalSinceReferenceDate: secondsSince2001)).description
        return iso.replacing("T", with: " ").replacing("Z", with: " +0000")
    }
}
