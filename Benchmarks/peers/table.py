"""Prints the peers benchmark's table from the harnesses' samples.

`python3 table.py SAMPLES.tsv [PROCESS.tsv]`: SAMPLES holds `operation<TAB>peer<TAB>seconds`
lines from every harness and pass; the table shows each side's median and the ratio
fastest peer's median ÷ ours (above 1: we are faster). PROCESS holds the whole-process
rows `operation<TAB>peer<TAB>seconds<TAB>peak-kB`."""

import statistics
import sys

OURS = "keyed-archive"
ROWS = [
    ("parse-binary-small", "parse binary", "1,000 small plists (~0.9 KB each)"),
    ("parse-openstep-small", "parse OpenStep", "1,000 small files"),
    ("release-generic", "release a parsed tree", "5 MB generic plist"),
    ("write-xml-small", "write XML", "1,000 small plists"),
    ("write-xml-archive", "write XML", "10k-object archive-like plist"),
    ("parse-binary-generic", "parse binary", "5 MB generic plist"),
    ("parse-xml-generic", "parse XML", "the same as 13.6 MB of XML"),
    ("write-binary-generic", "write binary", "5 MB generic plist"),
]


def duration(seconds):
    if seconds >= 1:
        return "%.2f s" % seconds
    if seconds >= 0.001:
        return "%.3g ms" % (seconds * 1e3)
    return "%.3g µs" % (seconds * 1e6)


def main(path, process_path=None):
    samples = {}
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            continue
        operation, peer, seconds = parts
        samples.setdefault(operation, {}).setdefault(peer, []).append(float(seconds))
    print("| operation | input | ours | fastest peer | ratio | other peers |")
    print("|---|---|---|---|---|---|")
    for key, operation, workload in ROWS:
        sides = {peer: statistics.median(values) for peer, values in samples.get(key, {}).items()}
        ours = sides.pop(OURS, None)
        if ours is None or not sides:
            continue
        ranked = sorted(sides.items(), key=lambda item: item[1])
        fastest, best = ranked[0]
        others = ", ".join("%s %s" % (peer, duration(value)) for peer, value in ranked[1:]) or "—"
        print("| %s | %s | %s | %s %s | %.2f | %s |" % (
            operation, workload, duration(ours), fastest, duration(best), best / ours, others))
    if process_path:
        print()
        print("Whole process (hyperfine mean; peak RSS from /usr/bin/time):")
        print()
        print("| command | input | process | time | peak memory |")
        print("|---|---|---|---|---|")
        for line in open(process_path):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            operation, workload, peer, seconds, kilobytes = parts
            print("| %s | %s | %s | %s | %.1f MB |" % (
                operation, workload, peer, duration(float(seconds)), int(kilobytes) / 1024))


if __name__ == "__main__":
    main(*sys.argv[1:])
