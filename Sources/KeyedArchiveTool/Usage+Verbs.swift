#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Usage {
    /// The help `-help` prints: the whole usage, or that of one verb (`decode --help`,
    /// `textconv --help`, `diff --help`).
    static func help(for topic: String?) -> String {
        switch topic {
        case "decode": return decodeHelp
        case "textconv": return textconvHelp
        case "diff": return diffHelp
        default: return text
        }
    }

    static let decodeHelp = """
        usage: keyed-archive decode [--json] [--raw] [--path KEYPATH] [--recover] [--expand] FILE...
               keyed-archive decode --jsonl [--recover] [--expand] [--columns A,B] FILE|FOLDER...

        Prints each keyed archive (or typedstream) as an object graph: classes named,
        references resolved, shared objects shown once and then as '→ #N (shared, see
        above)', cycles marked.

          --json             print the graph as JSON ({"$ref": N} for repeats)
          --path KEYPATH     show only the value at KEYPATH of the graph
                             (root.items.3.title: references, NS.objects, NS.keys followed)
          --recover          read damaged archives as far as possible: missing objects
                             shown as '→ #N (missing)', each problem reported
          --expand           decode archives found inside data values
          --jsonl            one JSON line per file (folders searched); exit status 1 if
                             any file failed; an SQLite database gives one line per BLOB
          --columns A,B      with --jsonl, add these columns of each BLOB's row
          --raw              show known classes (NSColor, NSFont, ...) field by field

        """

    static let textconvHelp = """
        usage: keyed-archive textconv FILE...

        Prints each property list, keyed archive or typedstream as text made for diffs
        (a git textconv driver): keys sorted, one value per line, array elements as
        '- ' lines without indices, archives as resolved object graphs, objects
        referenced more than once named from their content ('&Tag-1a2b3c4d' where first
        printed, '*Tag-1a2b3c4d' afterwards), archives inside data expanded, data shown
        as its length and a SHA-256 digest.

          git config diff.plist.textconv 'keyed-archive textconv'
          echo '*.plist diff=plist' >> .gitattributes

        """

    static let diffHelp = """
        usage: keyed-archive diff [--json] A B

        Compares two property lists, keyed archives or typedstreams (any formats) by key
        path, following archive references (root.items.3.title, not $objects indices),
        and prints one line per difference:

          + KEYPATH: VALUE            added in B
          - KEYPATH: VALUE            removed from A
          ~ KEYPATH: OLD → NEW        changed

          --json             print {"equal": …, "differences": [{"change", "path",
                             "keyPath", "old", "new"}, …]}

        Exit status: 0 when equal, 1 when they differ, 2 when an input cannot be read
        (or the comparison cannot finish within its limits), 64 for a usage error.

        """
}

extension Tool {
    /// The newline that ends JSON written to standard output.
    static let newline = Data([0x0A])
}
