"""Prints the peers benchmark's tables from the harnesses' samples.

`python3 table.py SAMPLES.tsv [PROCESS.tsv]`: SAMPLES holds
`shape-seed<TAB>operation<TAB>peer<TAB>seconds` lines from every harness, shape, seed and
pass. For each shape and seed, each side's time is its median over the rounds and the ratio
is the fastest peer's median ÷ ours (above 1: we are faster); a shape's ratio is the median
of its seeds' ratios. The first table shows, per operation, the *minimum* ratio over shapes
(the shape it comes from, and the lowest single seed); the second the ratio per shape.
PROCESS holds the whole-process rows `operation<TAB>input<TAB>peer<TAB>seconds<TAB>peak-kB`."""

import statistics
import sys

OURS = "keyed-archive"
OPERATIONS = ["parse-binary", "parse-xml", "parse-openstep", "write-binary", "write-xml", "release"]
INPUTS = [("small", "1,000 small documents"), ("generic", "5 MB document"),
          ("archive", "10,000-object archive")]
LABELS = {"parse-binary": "parse binary", "parse-xml": "parse XML", "parse-openstep": "parse OpenStep",
          "write-binary": "write binary", "write-xml": "write XML", "release": "release a parsed tree"}


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
        if len(parts) != 4:
            continue
        folder, operation, peer, seconds = parts
        samples.setdefault((folder, operation), {}).setdefault(peer, []).append(float(seconds))
    # (shape, operation) -> [(ratio, ours, fastest peer, its time)] over seeds
    by_shape = {}
    for (folder, operation), sides in samples.items():
        medians = {peer: statistics.median(values) for peer, values in sides.items()}
        ours = medians.pop(OURS, None)
        if ours is None or not medians:
            continue
        fastest = min(medians, key=medians.get)
        shape = folder.rsplit("-", 1)[0]
        by_shape.setdefault((shape, operation), []).append((medians[fastest] / ours, ours, fastest, medians[fastest]))
    shapes = sorted({shape for shape, _ in by_shape})
    rows = [(operation, key, label) for operation in OPERATIONS for key, label in INPUTS]

    def shape_ratio(entries):
        return statistics.median(entry[0] for entry in entries)

    print("Minimum over shapes (each shape: the median of its seeds' ratios):")
    print()
    print("| operation | input | ratio (min over shapes) | shape | ours | fastest peer | lowest seed |")
    print("|---|---|---|---|---|---|---|")
    for operation, key, label in rows:
        name = "%s-%s" % (operation, key)
        candidates = [(shape_ratio(entries), shape, entries) for (shape, op), entries in by_shape.items()
                      if op == name]
        if not candidates:
            continue
        ratio, shape, entries = min(candidates, key=lambda candidate: candidate[0])
        ours = statistics.median(entry[1] for entry in entries)
        fastest = statistics.mode(entry[2] for entry in entries)
        best = statistics.median(entry[3] for entry in entries)
        lowest = min(entry[0] for _, _, all_entries in candidates for entry in all_entries)
        print("| %s | %s | **%.2f** | %s | %s | %s %s | %.2f |" % (
            LABELS[operation], label, ratio, shape, duration(ours), fastest, duration(best), lowest))
    print()
    print("Ratio per shape:")
    print()
    print("| operation | input | " + " | ".join(shapes) + " |")
    print("|---|---|" + "---|" * len(shapes))
    for operation, key, label in rows:
        name = "%s-%s" % (operation, key)
        cells = ["%.2f" % shape_ratio(by_shape[(shape, name)]) if (shape, name) in by_shape else "—"
                 for shape in shapes]
        if all(cell == "—" for cell in cells):
            continue
        print("| %s | %s | %s |" % (LABELS[operation], key, " | ".join(cells)))
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
