"""Python's side of the peers benchmark: plistlib and openstep_plist (Cython).

`python3 harness.py DIR ROUNDS` prints one line `operation<TAB>peer<TAB>seconds` per timed
round. See run.sh."""

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
    small = [read(os.path.join(directory, "small", "%04d.bplist" % i)) for i in range(1000)]
    openstep = [read(os.path.join(directory, "openstep", "%04d.plist" % i)).decode() for i in range(1000)]
    generic = read(os.path.join(directory, "generic.bplist"))
    generic_xml = read(os.path.join(directory, "generic.xml"))
    clock = time.perf_counter
    gc.disable()  # as the other peers: no collector pauses inside a timing

    def report(operation, peer, round, seconds):
        if round:
            print("%s\t%s\t%.9f" % (operation, peer, seconds), flush=True)

    # Round 0 is the warm-up, not reported. Operations alternate within each round.
    for round in range(rounds + 1):
        start = clock()
        trees = [plistlib.loads(data) for data in small]
        report("parse-binary-small", "plistlib", round, clock() - start)

        start = clock()
        total = sum(len(plistlib.dumps(tree, fmt=plistlib.FMT_XML)) for tree in trees)
        report("write-xml-small", "plistlib", round, clock() - start)
        assert total > 0
        del trees

        if openstep_plist is not None:
            start = clock()
            trees = [openstep_plist.loads(text) for text in openstep]
            report("parse-openstep-small", "openstep_plist", round, clock() - start)
            del trees

        tree = plistlib.loads(generic)
        start = clock()
        del tree
        report("release-generic", "plistlib", round, clock() - start)

        start = clock()
        tree = plistlib.loads(generic)
        report("parse-binary-generic", "plistlib", round, clock() - start)

        start = clock()
        plistlib.dumps(tree, fmt=plistlib.FMT_BINARY)
        report("write-binary-generic", "plistlib", round, clock() - start)
        del tree

        start = clock()
        tree = plistlib.loads(generic_xml)
        report("parse-xml-generic", "plistlib", round, clock() - start)
        del tree
        # write-xml-archive: plistlib refuses UIDs in XML.


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
