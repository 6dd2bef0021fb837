import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An input of `textconv` and `diff`: a keyed archive or typedstream as its object graph,
/// anything else as a property list.
struct ResolvedInput {
    /// `keyed archive (binary)`, `property list (xml)`, `typedstream`, `JSON`.
    let kind: String
    let view: ResolvedArchiveView
    /// The graph's `$top` (a dictionary), or the property list.
    let root: ArchivedObjectGraph.Value
    /// The bytes read, which bound the work and the output.
    let byteCount: Int
}

extension Tool {
    /// Reads `name` for `textconv` and `diff`: a typedstream or a keyed archive as its object
    /// graph (a damaged archive as the property list it is), other property lists — binary,
    /// XML, OpenStep, JSON — as they are.
    func resolvedInput(_ name: String) throws(ToolFailure) -> ResolvedInput {
        let data = try readInput(name)
        if TypedStreamUnarchiver.isTypedStream(data) {
            do {
                let graph = try TypedStreamUnarchiver.objectGraph(from: data).archivedObjectGraph()
                return ResolvedInput(
                    kind: "typedstream", view: ResolvedArchiveView(graph: graph),
                    root: .dictionary(graph.topLevel), byteCount: data.count)
            } catch {
                throw ToolFailure("not a readable typedstream: \(error)")
            }
        }
        var value: PropertyList
        var format: String
        do {
            value = try PropertyList(from: data)
            format = Self.formatName(PropertyListFormat.detect(data))
        } catch {
            guard Self.looksLikeJSON(data) else { throw ToolFailure("\(error)") }
            var text = data[...]
            if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
            do throws(JSONValueReader.Failure) {
                value = try JSONValueReader.read(String(decoding: text, as: UTF8.self))
            } catch let jsonError {
                throw ToolFailure("\(error); as JSON: \(jsonError.message)")
            }
            format = "json"
        }
        if case .dictionary(let dictionary) = value, dictionary["$objects"] != nil, dictionary["$top"] != nil,
            let graph = try? KeyedUnarchiver.objectGraph(from: value)
        {
            return ResolvedInput(
                kind: "keyed archive (\(format))",
                view: ResolvedArchiveView(graph: graph), root: .dictionary(graph.topLevel),
                byteCount: data.count)
        }
        return ResolvedInput(
            kind: "property list (\(format))", view: ResolvedArchiveView(graph: nil),
            root: ArchivedObjectGraph.Value(value),
            byteCount: data.count)
    }

    static func formatName(_ format: PropertyListFormat) -> String {
        switch format {
        case .binary: return "binary"
        case .xml: return "xml"
        case .openStep: return "openstep"
        }
    }

    /// `keyed-archive textconv FILE…`: each file as text made for line diffs
    /// (``TextconvWriter``); with several files, each preceded by `==> FILE <==`.
    func textconv(_ invocation: Invocation) -> Int32 {
        var status = ExitStatus.success
        for name in invocation.files {
            do throws(ToolFailure) {
                let input = try resolvedInput(name)
                let limit = Self.outputLimit(forInputLength: input.byteCount)
                var writer = TextconvWriter(
                    limit: limit, expansion: NestedArchive.Budget(forInputLength: input.byteCount))
                if invocation.files.count > 1 { try writer.line(0, "==> \(name) <==") }
                try writer.line(0, "# \(input.kind)")
                try writer.writeTop(input.root, view: input.view, level: 0)
                writeText(writer.text)
            } catch {
                environment.writeError("\(name): \(error.message)\n")
                status = ExitStatus.failure
            }
        }
        return status
    }
}

/// The text of `keyed-archive textconv`, made so that a small change to a file is a small
/// change to its text:
///
/// - one value per line, indented two spaces per level; dictionary keys and object fields
///   sorted; array elements as `- ` lines, without indices (an inserted element does not
///   renumber the ones after it);
/// - references followed: an `NSArray` is a list, an `NSDictionary` its entries, an
///   `NSString`, `NSDate` or `NSData` its value; an object is its class, then its fields;
/// - an object (or array, or dictionary) referenced more than once is printed in full
///   where it is first reached, tagged `&Class-1a2b3c4d`, a name taken from its class and
///   its scalar contents (``ResolvedArchiveView/fingerprint(_:)``), never from `$objects`
///   indices; later references print `*Class-1a2b3c4d`; objects referenced once get no name;
/// - data is its length and SHA-256 digest, and data holding a keyed archive, a property
///   list or a typedstream is expanded below it (within ``NestedArchive``'s budget).
///
/// Bounded: the text stops at the output limit (64 times the input, at least 64 MB), with
/// an error; shared objects are printed once, so the work follows the text; nesting deeper
/// than ``maximumDepth`` is refused.
struct TextconvWriter {
    static let maximumDepth = 512
    /// Indentation stops growing here; deeper lines start with their level.
    static let deepestIndentation = 64

    private(set) var text = ""
    let limit: Int
    let expansion: NestedArchive.Budget
    /// Names given to shared nodes, per graph (archives inside data have graphs of their own).
    private var names: [[Int: String]] = [[:]]
    private var usedNames: Set<String> = []

    init(limit: Int, expansion: NestedArchive.Budget) {
        self.limit = limit
        self.expansion = expansion
    }

    mutating func line(_ level: Int, _ content: String) throws(Tool.ToolFailure) {
        if level > Self.deepestIndentation {
            text += "⋯\(level) "
        } else {
            text += String(repeating: "  ", count: level)
        }
        text += content
        text += "\n"
        guard text.utf8.count <= limit else { throw Tool.ToolFailure(Tool.outputTooLarge(limit)) }
    }

    /// The root of an input: a dictionary's entries (a graph's `$top`) at `level`, an
    /// array's elements, or a scalar's line.
    mutating func writeTop(_ value: ArchivedObjectGraph.Value, view: ResolvedArchiveView, level: Int)
        throws(Tool.ToolFailure)
    {
        switch view.shape(of: value) {
        case .keyed(nil, let entries) where !entries.isEmpty && view.containerNode(value) == nil:
            for entry in entries {
                try write(entry.value, label: Self.key(entry.key) + ":", view: view, level: level)
            }
        case .list(nil, let elements) where !elements.isEmpty && view.containerNode(value) == nil:
            for element in elements { try write(element, label: "-", view: view, level: level) }
        default:
            try write(value, label: "", view: view, level: level)
        }
    }

    /// A key as it is when plain, quoted otherwise (empty, spaces, `:`, quotes, controls).
    static func key(_ key: String) -> String {
        let plain =
            !key.isEmpty && !key.hasPrefix("-") && !key.hasPrefix("#") && !key.hasPrefix("&")
            && !key.hasPrefix("*")
            && key.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0 != ":" && $0 != "\"" && !DisplayText.isEscaped($0)
            }
        return plain ? key : DisplayText.quoted(key)
    }

    private mutating func write(
        _ value: ArchivedObjectGraph.Value, label: String, view: ResolvedArchiveView, level: Int
    ) throws(Tool.ToolFailure) {
        guard level < Self.maximumDepth else {
            throw Tool.ToolFailure("values are nested more than \(Self.maximumDepth) deep")
        }
        let prefix = label.isEmpty ? "" : label + " "
        var tag = ""
        if let node = view.containerNode(value), view.referenceCount(node) > 1 {
            if let name = names[names.count - 1][node] {
                try line(level, prefix + "*" + name)
                return
            }
            let name = uniqueName(view, value)
            names[names.count - 1][node] = name
            tag = " &" + name
        }
        switch view.shape(of: value) {
        case .leaf(let leaf):
            try line(level, prefix + leaf + tag)
        case .data(let data):
            let summary = ResolvedArchiveView.dataText(data)
            guard let content = NestedArchive.recognize(data, recovering: false, budget: expansion) else {
                try line(level, prefix + summary + tag)
                return
            }
            try line(level, prefix + summary + tag + " ⇒ " + content.kindName)
            names.append([:])
            defer { names.removeLast() }
            switch content {
            case .keyedArchive(let graph), .typedstream(let graph):
                try writeTop(
                    .dictionary(graph.topLevel), view: ResolvedArchiveView(graph: graph), level: level + 1)
            case .propertyList(let plist):
                try writeTop(
                    ArchivedObjectGraph.Value(plist), view: ResolvedArchiveView(graph: nil), level: level + 1)
            }
        case .keyed(let className, let entries):
            let head = className.map { DisplayText.quotedIfNeeded($0) } ?? ""
            if entries.isEmpty {
                try line(level, prefix + (head.isEmpty ? "{}" : head + " {}") + tag)
                return
            }
            try line(level, (prefix + head).trimmingTrailingSpace() + tag)
            for entry in entries {
                try write(entry.value, label: Self.key(entry.key) + ":", view: view, level: level + 1)
            }
        case .list(let className, let elements):
            let head = className.map { DisplayText.quotedIfNeeded($0) } ?? ""
            if elements.isEmpty {
                try line(level, prefix + (head.isEmpty ? "[]" : head + " []") + tag)
                return
            }
            try line(level, (prefix + head).trimmingTrailingSpace() + tag)
            for element in elements { try write(element, label: "-", view: view, level: level + 1) }
        }
    }

    /// `Class-1a2b3c4d` from the value's class and fingerprint; `-2`, `-3`, … when taken.
    private mutating func uniqueName(_ view: ResolvedArchiveView, _ value: ArchivedObjectGraph.Value)
        -> String
    {
        let base: String
        switch view.shape(of: value) {
        case .keyed(let className, _): base = className ?? "dict"
        case .list(let className, _): base = className ?? "array"
        default: base = "value"
        }
        let plainBase = String(
            base.unicodeScalars.filter { $0.value > 0x20 && !DisplayText.isEscaped($0) }.prefix(40).map(
                Character.init))
        let hash = String(view.fingerprint(value) >> 32, radix: 16)
        let stem =
            "\(plainBase.isEmpty ? "object" : plainBase)-\(String(repeating: "0", count: 8 - hash.count))\(hash)"
        var name = stem
        var number = 1
        while !usedNames.insert(name).inserted {
            number += 1
            name = "\(stem)-\(number)"
        }
        return name
    }
}

extension String {
    fileprivate func trimmingTrailingSpace() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
