/// The help text of `keyed-archive`.
enum Usage {
    /// The first lines, printed after a usage error.
    static let synopsis = """
        usage: keyed-archive -lint | -p | -convert FORMAT [options] FILE...
               keyed-archive -extract KEYPATH FORMAT | -type KEYPATH [-expect TYPE] [options] FILE...
               keyed-archive -insert | -replace KEYPATH -TYPE VALUE | -remove KEYPATH [options] FILE...
               keyed-archive -create FORMAT FILE...
               keyed-archive decode [--json] [--raw] [--path KEYPATH] [--recover] [--expand] FILE...
               keyed-archive decode --jsonl [--recover] [--expand] [--raw] [--columns A,B] FILE|FOLDER...
               keyed-archive sqlite [--json] DATABASE|FOLDER...
               keyed-archive textconv FILE...
               keyed-archive diff [--json] A B
        Run 'keyed-archive -help' for details.

        """

    /// The full help, printed by `-help` (standard output) and with no arguments
    /// (standard error).
    static let text = """
        usage: keyed-archive -lint | -p | -convert FORMAT [options] FILE...
               keyed-archive -extract KEYPATH FORMAT | -type KEYPATH [-expect TYPE] [options] FILE...
               keyed-archive -insert | -replace KEYPATH -TYPE VALUE | -remove KEYPATH [options] FILE...
               keyed-archive -create FORMAT FILE...
               keyed-archive decode [--json] [--raw] [--path KEYPATH] [--recover] [--expand] FILE...
               keyed-archive decode --jsonl [--recover] [--expand] [--raw] [--columns A,B] FILE|FOLDER...
               keyed-archive sqlite [--json] DATABASE|FOLDER...
               keyed-archive textconv FILE...
               keyed-archive diff [--json] A B

        Checks, prints and converts property lists (binary, XML, OpenStep), including
        keyed archives (NSKeyedArchiver files with CF$UID references); JSON files are
        read too. A FILE of '-' means standard input.

        Commands (-lint is the default when only files are given):
          -lint              check that each FILE is a well-formed property list (or typedstream)
          -p                 print each FILE in a human-readable form (not for parsing)
          -convert FORMAT    rewrite each FILE in FORMAT, in place unless -o or -e is given;
                             FORMAT is one of: xml1, binary1, json, swift, objc (literal
                             source, written beside FILE as .swift or .m), keyed (a
                             typedstream as an NSKeyedArchiver archive, Apple's keyed
                             layout of each class), typedstream (a keyed archive as an
                             NSArchiver typedstream)
          -extract KEYPATH FORMAT
                             write the value at KEYPATH as a property list in FORMAT (xml1,
                             binary1, json; in place unless -o is given), or print it (raw)
          -type KEYPATH      print the type of the value at KEYPATH: bool, integer, float,
                             string, date, data, dictionary, array (or uid)
          -insert KEYPATH -TYPE VALUE
                             add VALUE at KEYPATH (-append: at the end of the array there);
                             TYPE is one of: bool, integer, float, string, date, data, xml,
                             json, array, dictionary (array and dictionary take no VALUE)
          -replace KEYPATH -TYPE VALUE
                             set the value at KEYPATH, whether or not there is one
          -remove KEYPATH    remove the value at KEYPATH
          -create FORMAT     write an empty dictionary to each FILE (xml1, binary1, json)
          decode             print each keyed archive as an object graph: classes named,
                             references resolved, shared objects shown once and then
                             as '→ #N (shared, see above)', cycles marked (first word only);
                             a typedstream (NSArchiver) prints the same way, each object's
                             values as $0, $1, ... in order; an attributed string (an
                             iMessage body) as its text and runs (--raw: its values)
          sqlite             summarize each SQLite database: its tables and row counts,
                             the columns holding archives, counts by format and class
          textconv           print each FILE as text made for line diffs (a git textconv
                             driver): keys sorted, one value per line, archives resolved,
                             shared objects named from their content, data as a digest
          diff               compare two files (any formats) by key path, through archive
                             references; exit status 0 equal, 1 different, 2 trouble
          -help, -h          show this help ('VERB --help' or 'help': a verb's, the whole)

        KEYPATH is keys separated by '.' ('\\.' is a dot inside a key); a number picks an
        array element (with -insert, the place to insert at). Edits keep each FILE's
        format and replace it durably and whole, or not at all. A KEYPATH that meets a
        data value holding a property list or keyed archive continues inside it
        (Font.root.NSSize), and the data is re-encoded in its own format.

        Options:
          -s                 with -lint, print nothing for files that are OK
          -o PATH            with one FILE, write to PATH instead ('-' = standard output)
          -e EXTENSION       with -convert, write beside each FILE with this extension
          -header            with -convert objc, also write a header (.h) beside the source
          -r                 with json, indent the JSON for people
          -expect TYPE       with -extract and -type, fail unless the value is a TYPE
          -n                 with -extract KEYPATH raw, print no newline after the value
          -append            with -insert, add to the end of the array at KEYPATH
          --json             with decode, print the graph as JSON ({"$ref": N} for repeats);
                             with diff, the differences as JSON
                             with sqlite, one JSON object per database
          --path KEYPATH     with decode, show only the value at KEYPATH of the graph
                             (root.items.3.title: references, NS.objects, NS.keys followed)
          --resolve          with -extract, -type and the edits, follow KEYPATH through a
                             keyed archive's object graph; an edit changes only that path,
                             copying a shared object on write
          --shared           with --resolve and the edits, edit a shared object itself:
                             every reference to it sees the change
          --recover          with decode, read damaged archives as far as possible: missing
                             objects shown as '→ #N (missing)', each problem reported
          --expand           with decode, decode archives found inside data values
          --jsonl            with decode, one JSON line per file (folders searched);
                             exit status 1 if any file failed; an SQLite database gives
                             one line per BLOB holding a plist, archive or typedstream
                             (with its -wal and -journal; --recover adds deleted data)
          --columns A,B      with decode --jsonl, add these columns of each BLOB's row
          --raw              with decode, show known classes (NSColor, NSFont, ...) field by field
          --                 treat every later argument as a FILE

        Exit status: 0 on success, 1 if any FILE failed, 64 for a usage error.

        """
}
