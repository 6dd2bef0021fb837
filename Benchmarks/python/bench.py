#!/usr/bin/env python3
"""The Python package `keyedarchive` against the Python readers, on the same inputs, in one run.

usage: Benchmarks/python/bench.py [--quick]

Needs `keyedarchive` installed (or Bindings/Python on PYTHONPATH with the extension built),
and for the comparisons nska_deserialize, bpylist2 and pytypedstream (pip install them);
a missing reader's rows are skipped. Each figure is the median of 5 timed batches
(min 0.2 s each) after a warm-up; the ratio is theirs / ours (higher is better for us).

`unarchive` is measured on three inputs, each given to both sides and checked to give equal
values: the 500-dictionary archive, one of the same kind with about 10,000 objects, and the
Apple-made archives of the shared fixtures that bpylist2 reads (it refuses classes outside
its own map), timed as one batch.
"""
import contextlib
import datetime
import io
import pathlib
import plistlib
import random
import statistics
import sys
import time

import keyedarchive
import keyedarchive.typedstream

QUICK = "--quick" in sys.argv
FIXTURES = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures"


def per_call(function, argument):
    function(argument)
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            function(argument)
        elapsed = time.perf_counter() - start
        if elapsed >= (0.05 if QUICK else 0.2):
            break
        number *= 2
    samples = []
    for _ in range(3 if QUICK else 5):
        start = time.perf_counter()
        for _ in range(number):
            function(argument)
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def records(count, seed=7):
    rng = random.Random(seed)
    return {"Records": [
        {"Title": f"Creature {i}", "Rating": rng.random() * 5, "Legs": rng.randrange(0, 100),
         "Seen": datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=rng.randrange(10**8)),
         "Harmless": rng.random() < 0.5, "Tags": ["small", "green", f"t{i % 17}"],
         "Photo": bytes(rng.randrange(256) for _ in range(32))}
        for i in range(count)]}


def keyed_archive(count):
    """An NSKeyedArchiver archive of `count` dictionaries (strings, numbers, an array), as
    Foundation writes them."""
    objects = ["$null"]

    def add(value):
        objects.append(value)
        return plistlib.UID(len(objects) - 1)

    array_class = add({"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]})
    dict_class = add({"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]})
    keys = [add("Title"), add("Legs"), add("Rating"), add("Tags")]
    root_items = []
    for i in range(count):
        tags = add({"NS.objects": [add("small"), add(f"t{i % 17}")], "$class": array_class})
        values = [add(f"Creature {i}"), add(i % 100), add(i * 0.5), tags]
        root_items.append(add({"NS.keys": keys, "NS.objects": values, "$class": dict_class}))
    root = add({"NS.objects": root_items, "$class": array_class})
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)


rows = []


def row(name, target, ours, theirs_name, theirs):
    ratio = theirs / ours
    rows.append((name, target, ours, theirs_name, theirs, ratio))
    print(f"| {name} | {ours * 1e6:,.1f} µs | {theirs_name} {theirs * 1e6:,.1f} µs | {ratio:,.1f}× | {target} |",
          flush=True)


print("| operation | keyedarchive | reference | speed-up | goal |")
print("|---|---|---|---|---|")
value = records(200 if QUICK else 1000)
binary = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
xml = plistlib.dumps(value, fmt=plistlib.FMT_XML)
row(f"loads, binary ({len(binary) // 1024} KB)", "≥ 5×", per_call(keyedarchive.loads, binary),
    "plistlib.loads", per_call(plistlib.loads, binary))
row(f"loads, XML ({len(xml) // 1024} KB)", "≥ 10×", per_call(keyedarchive.loads, xml),
    "plistlib.loads", per_call(plistlib.loads, xml))
row("dumps, binary", "≥ 5×", per_call(lambda v: keyedarchive.dumps(v, fmt=keyedarchive.FMT_BINARY), value),
    "plistlib.dumps", per_call(lambda v: plistlib.dumps(v, fmt=plistlib.FMT_BINARY), value))
row("dumps, XML", "≥ 5×", per_call(lambda v: keyedarchive.dumps(v, fmt=keyedarchive.FMT_XML), value),
    "plistlib.dumps", per_call(lambda v: plistlib.dumps(v, fmt=plistlib.FMT_XML), value))

archive = keyed_archive(100 if QUICK else 500)
ours = per_call(keyedarchive.unarchive, archive)
try:
    import nska_deserialize

    def nska(data):
        with contextlib.redirect_stdout(io.StringIO()):
            return nska_deserialize.deserialize_plist_from_string(data)

    assert keyedarchive.unarchive(archive) == nska(archive)
    row(f"unarchive ({len(archive) // 1024} KB archive)", "≥ 10×", ours, "nska_deserialize", per_call(nska, archive))
except ImportError:
    print("| unarchive | | nska_deserialize not installed | | |")
try:
    from bpylist2 import archiver
    row(f"unarchive ({len(archive) // 1024} KB archive)", "≥ 10×", ours, "bpylist2", per_call(archiver.unarchive,
                                                                                                 archive))
    # A larger archive of the same kind (about 10,000 objects), and the Apple-made archives of
    # the shared fixtures that bpylist2 reads (it refuses classes outside its map), summed.
    large = keyed_archive(100 if QUICK else 1413)
    assert keyedarchive.unarchive(large) == archiver.unarchive(large)
    row(f"unarchive ({len(large) // 1024} KB archive, {len(plistlib.loads(large)['$objects']):,} objects)", "≥ 10×",
        per_call(keyedarchive.unarchive, large), "bpylist2", per_call(archiver.unarchive, large))
    apple = []
    folder = FIXTURES / "apple-keyed-archives"
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.suffix == ".json":
            continue
        try:
            data = path.read_bytes()
            archiver.unarchive(data)
            keyedarchive.unarchive(data)
            apple.append(data)
        except Exception:
            continue
    if apple:
        def each(function):
            return lambda inputs: [function(data) for data in inputs]
        row(f"unarchive ({len(apple)} Apple-made archives bpylist2 reads, {sum(map(len, apple)) // 1024} KB)", "≥ 10×",
            per_call(each(keyedarchive.unarchive), apple), "bpylist2", per_call(each(archiver.unarchive), apple))
except ImportError:
    print("| unarchive | | bpylist2 not installed | | |")

bodies = sorted((FIXTURES / "typedstream").glob("*.typedstream")) if (FIXTURES / "typedstream").is_dir() else []
try:
    import typedstream
    body = None
    for path in bodies:
        data = path.read_bytes()
        try:
            keyedarchive.imessage_text(data)
            root = typedstream.unarchive_from_data(data)
        except Exception:
            continue
        if len(root.contents) >= 3:
            body = data
            break
    if body is None:
        print("| imessage_text | | no attributedBody fixture found | | |")
    else:
        theirs = per_call(typedstream.unarchive_from_data, body)
        row(f"imessage_text ({len(body)} B body)", "≥ 50×", per_call(keyedarchive.imessage_text, body),
            "pytypedstream", theirs)
        row(f"typedstream.loads ({len(body)} B body)", "≥ 15×", per_call(keyedarchive.typedstream.loads, body),
            "pytypedstream", theirs)
except ImportError:
    print("| imessage_text, typedstream.loads | | pytypedstream not installed | | |")
