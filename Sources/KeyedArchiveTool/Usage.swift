/// The help text of `keyed-archive`.
enum Usage {
    /// The first lines, printed after a usage error.
    static let synopsis = """
        usage: keyed-archive -lint | -p | -convert FORMAT [options] FILE...
               keyed-archive decode [--json] FILE...
        Run 'keyed-archive -help' for details.

        """

    /// The full help, printed by `-help` (standard output) and with no arguments
    /// (standard error).
    static let text = """
        usage: keyed-archive -lint | -p | -convert FORMAT [options] FILE...
               keyed-archive decode [--json] FILE...

        Checks, prints and converts property lists (binary, XML, OpenStep), including
        keyed archives (NSKeyedArchiver files with CF$UID references). A FILE of '-'
        means standard input.

        Commands (-lint is the default when only files are given):
          -lint              check that each FILE is a well-formed property list (or typedstream)
          -p                 print each FILE in a human-readable form (not for parsing)
          -convert FORMAT    rewrite each FILE in FORMAT, in place unless -o or -e is given;
                             FORMAT is one of: xml1, binary1, json
          decode             print each keyed archive as an object graph: classes named,
                             references resolved, shared objects shown once and then
                             as '→ #N (shared, see above)', cycles marked (first word only);
                             a typedstream (NSArchiver) prints the same way, each object's
                             values as $0, $1, ... in order
          -help, -h          show this help

        Options:
          -s                 with -lint, print nothing for files that are OK
          -o PATH            with -convert and one FILE, write to PATH ('-' = standard output)
          -e EXTENSION       with -convert, write beside each FILE with this extension
          -r                 with -convert json, indent the JSON for people
          --json             with decode, print the graph as JSON ({"$ref": N} for repeats)
          --                 treat every later argument as a FILE

        Exit status: 0 on success, 1 if any FILE failed, 64 for a usage error.

        """
}
