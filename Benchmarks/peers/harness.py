"""Python's side of the peers benchmark: plistlib and openstep_plist (Cython).

`python3 harness.py DIR ROUNDS` reads one shape's inputs (see make_inputs.py) and prints one
line `operation<TAB>peer<TAB>seconds` per timed round. plistlib sorts keys when writing, as
we do; it refuses UIDs in XML, so it writes no XML archive (nor the archive shape's documents). See run.sh."""

import gc
import os
import plistlib
import sys
import time

try:
    import openstep_plist
except ImportError:
    openstep_plist = None


def read(path):
    with open(path, "rb") as file:
        return file.read()


def main(directory, rounds):
    def optional(path):
        return read(path) if os.path.exists(path) else None

    inputs = []
    for name in ("small", "generic", "archive"):
        stems = [os.path.join(directory, "small", "%04d" % i) for i in range(1000)] if name == "small" \
            else [os.path.join(directory, name)]
        binary = [read(stem + ".bplist") for stem in stems]
        xml = [read(stem + ".xml") for stem in stems]
        openstep = [optional(stem + ".plist") for stem in stems]
        openstep = [text.decode() for text in openstep] if all(openstep) else []
        inputs.append((name, binary, xml, openstep))
    clock = time.perf_counter
    gc.disable()  # as the other peers: no collector pauses inside a timing

    def report(operation, name, peer, round, seconds):
        if round:
            print("%s-%s\t%s\t%.9f" % (operation, name, peer, seconds), flush=True)

    # Round 0 is the warm-up, not reported. Operations alternate within each round.
    for round in range(rounds + 1):
        for name, binary, xml, openstep in inputs:
            start = clock()
            trees = [plistlib.loads(data) for data in binary]
            report("parse-binary", name, "plistlib", round, clock() - start)
            del trees

            start = clock()
            trees = [plistlib.loads(data) for data in xml]
            report("parse-xml", name, "plistlib", round, clock() - start)
            del trees

            if openstep_plist is not None and openstep:
                start = clock()
                trees = [openstep_plist.loads(text) for text in openstep]
                report("parse-openstep", name, "openstep_plist", round, clock() - start)
                del trees

            trees = [plistlib.loads(data) for data in binary]
            start = clock()
            total = sum(len(plistlib.dumps(tree, fmt=plistlib.FMT_BINARY)) for tree in trees)
            report("write-binary", name, "plistlib", round, clock() - start)
            assert total > 0

            try:
                start = clock()
                total = sum(len(plistlib.dumps(tree, fmt=plistlib.FMT_XML)) for tree in trees)
                report("write-xml", name, "plistlib", round, clock() - start)
                assert total > 0
            except TypeError:
                pass  # a UID: no XML for plistlib

            start = clock()
            del trees
            report("release", name, "plistlib", round, clock() - start)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
