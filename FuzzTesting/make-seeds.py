#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target into a folder (outside git).

Seeds come from three places: the shared fixtures (../../shared/fixtures, or $FIXTURES),
the small self-made seeds committed under Seeds/, and inputs generated here with Python's
plistlib (property lists of every type, keyed archives shaped like the fuzzer's
FuzzCreature and FuzzPoint, shared-reference bombs). Fixtures are never copied into the
repository: they are read at run time.

usage: make-seeds.py TARGET OUTDIR   (TARGET: FuzzBinary FuzzXML FuzzOpenStep FuzzUnarchiver FuzzRoundTrip FuzzStreamed
       FuzzCodable FuzzTypedStream FuzzIMessageBody FuzzSQLite)
"""
import datetime
import hashlib
import os
import plistlib
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_SEED = 32 * 1024


def fixture_files():
    root = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "..", "shared", "fixtures")
    if not os.path.isdir(root):
        print(f"note: no fixtures at {root}; seeding from generated inputs only", file=sys.stderr)
        return
    for folder in ("plists", "apple-keyed-archives", "malformed"):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith(".json"):
                continue
            with open(os.path.join(path, name), "rb") as f:
                yield f.read()
    # The repository's own sample archive.
    sample = os.path.join(HERE, "..", "Documentation", "Samples", "Data.plist")
    if os.path.exists(sample):
        with open(sample, "rb") as f:
            yield f.read()


def typedstream_fixtures():
    """The typedstream fixtures, and cuts of each (truncated, one byte flipped) as starting
    points for the hostile shapes."""
    root = os.environ.get("FIXTURES") or os.path.join(HERE, "..", "..", "shared", "fixtures")
    path = os.path.join(root, "typedstream")
    if not os.path.isdir(path):
        print(f"note: no typedstream fixtures at {path}", file=sys.stderr)
        return
    for name in sorted(os.listdir(path)):
        if not name.endswith(".typedstream"):
            continue
        with open(os.path.join(path, name), "rb") as f:
            data = f.read()
        yield data
        if len(data) > 40:
            yield data[: len(data) // 2]
            yield data[:20] + bytes([data[20] ^ 0x40]) + data[21:]


def generated_typedstreams():
    """Small streams of shapes the fixtures lack: big-endian, arrays, structures, classes,
    selectors, nesting."""
    header_le = b"\x04\x0bstreamtyped\x81\xe8\x03"
    header_be = b"\x04\x0btypedstream\x81\x03\xe8"
    yield header_be + b"\x84\x01@\x84\x84\x84\x08NSString\x01\x84\x84\x08NSObject\x00\x85\x84\x01+\x02hi\x86"
    yield header_le + b"\x84\x0c[3i]{?=if}^s\x01\x02\x03\x04\x83\x00\x00\x80\x3f\x05"
    yield header_le + b"\x84\x03#:*\x84\x84\x04Test\x07\x85\x84\x84\x03sel\x84\x93"
    yield header_le + b"\x84\x01@" + b"\x84\x84\x84\x0aFuzzMarker\x00\x85" + b"\x84\x01i\x05\x84\x01@\x85\x86"
    # AppKit classes: an NSFont (its name an old binary property list), an NSColor, and a
    # colour list (.clr: "i", "@i", "@@" per colour).
    yield header_le + (b"\x84\x01@\x84\x84\x84\x06NSFont\x1e\x84\x84\x08NSObject\x00\x85\x84\x01i\x10"
                       b"\x84\x05[16c]\x06\x00\x00\x00\x06\x00\x00\x00\xff\xfeA\x00B\x00\x00\x00"
                       b"\x84\x01f\x0b\x84\x01c\x00\x98\x01\x98\x00\x98\x00\x86")
    yield header_le + (b"\x84\x01@\x84\x84\x84\x07NSColor\x00\x84\x84\x08NSObject\x00\x85\x84\x01c\x06"
                       b"\x84\x03@@@\x84\x84\x84\x08NSString\x01\x94\x84\x01+\x06System\x86"
                       b"\x84\x96\x98\x04text\x86\x84\x93\x95\x03\x84\x02ff\x00\x01\x86\x86")
    yield header_le + (b"\x84\x01i\x01\x84\x02@i\x85\x01\x84\x02@@\x84\x84\x84\x07NSColor\x00\x84\x84"
                       b"\x08NSObject\x00\x85\x84\x01c\x01\x84\x04ffff\x01\x00\x00\x01\x86"
                       b"\x84\x84\x84\x08NSString\x01\x94\x84\x01+\x03Red\x86")
    # A paragraph style (version 2, 32-bit integers, two tab stops, one extra group), alone and
    # as the attribute of an attributed string.
    style = (b"\x84\x84\x84\x10NSParagraphStyle\x02\x84\x84\x08NSObject\x00\x85"
             b"\x84\x01i\x02\x95\x00\x84\x01f\x0a\x96\x83\x00\x00\xb0\x40\x96\x02\x96\x00\x96\x00"
             b"\x96\x06\x96\xf4\x84\x01I\x02\x84\x04[2f]\x1c\x83\x00\x00\x62\x42\x84\x04[2i]\x00\x02"
             b"\x95\x01\x84\x01c\x07\x86")
    yield header_le + b"\x84\x01@" + style
    yield header_le + (b"\x84\x01@\x84\x84\x84\x12NSAttributedString\x00\x84\x84\x08NSObject\x00\x85"
                       b"\x92\x84\x84\x84\x08NSString\x01\x94\x84\x01+\x02hi\x86"
                       b"\x84\x02iI\x01\x02\x92\x84\x84\x84\x0cNSDictionary\x00\x94\x84\x01i\x01"
                       b"\x92\x84\x96\x96\x10NSParagraphStyle\x86\x92\x84\x84\x84\x17NSMutableParagraphStyle"
                       b"\x00\x84\x84\x10NSParagraphStyle\x03\x94\x84\x01q\x01\x9c\x00\x84\x01f\x00"
                       b"\x9d\x00\x9d\x00\x9d\x00\x9d\x00\x9d\x00\x9d\x00\x84\x01Q\x00\x9c\xff\x86\x86\x86")
    deep = b"\x84\x01@" + b"\x84\x84\x84\x07NSArray\x00\x85\x84\x01i\x01\x92"
    for _ in range(30):
        deep += b"\x84\x93\x95\x01\x92"
    yield header_le + deep


def committed(kind):
    path = os.path.join(HERE, "Seeds", kind)
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            with open(os.path.join(path, name), "rb") as f:
                yield f.read()


def kind_of(data):
    if data.startswith(b"bplist"):
        return "binary"
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<?xml") or text.startswith(b"<plist") or text.startswith(b"<!"):
        return "xml"
    return "openstep"


def sample_values():
    date = datetime.datetime(2024, 2, 29, 12, 30, 15)
    yield {"string": "hello", "unicode": "h\u00e9llo \u20ac \U0001F600", "int": 42, "neg": -7,
           "big": 2**63 + 5, "min": -(2**63), "real": 3.25, "bool": True, "false": False,
           "date": date, "data": bytes(range(40)), "array": [1, "two", [3.0, {"k": "v"}]],
           "empty": {}, "emptyArray": [], "uid": plistlib.UID(3)}
    yield [i for i in range(300)]
    yield ["x" * n for n in (0, 1, 14, 15, 16, 300)]
    yield {f"key{i}": i * 1.5 for i in range(40)}
    # More keys than the XML rewriting's table of recent keys holds, among UIDs (as
    # {"CF$UID": n} in XML): whether a dictionary is a UID must not depend on that table.
    yield {f"key{i}": plistlib.UID(i % 7) if i % 3 else {"CF$UID": "no"} for i in range(120)}
    yield [plistlib.UID((1 << 24) - 1), plistlib.UID((1 << 26) - 1), plistlib.UID(2**32 - 1)]
    nested = "bottom"
    for _ in range(40):
        nested = [nested]
    yield nested
    yield "just a string"
    yield 2**64 - 1
    yield b"\x00\xff" * 20


def generated(kind):
    for value in sample_values():
        if kind in ("binary", "roundtrip"):
            yield plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False)
        if kind in ("xml", "roundtrip"):
            try:
                yield plistlib.dumps(xml_spelling(value), fmt=plistlib.FMT_XML)
            except (TypeError, ValueError, OverflowError):
                pass  # plistlib cannot write UIDs or 2**64-1 as XML
    if kind in ("unarchiver", "binary", "xml", "roundtrip"):
        for archive in archives():
            if kind in ("unarchiver", "binary", "roundtrip"):
                yield plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=False)
            if kind in ("unarchiver", "xml"):
                yield plistlib.dumps(xml_spelling(archive), fmt=plistlib.FMT_XML)


def xml_spelling(value):
    """XML has no UID type: archives spell them as {"CF$UID": n}."""
    if isinstance(value, plistlib.UID):
        return {"CF$UID": value.data}
    if isinstance(value, list):
        return [xml_spelling(v) for v in value]
    if isinstance(value, dict):
        return {k: xml_spelling(v) for k, v in value.items()}
    return value


class Archive:
    """Builds a keyed archive's $objects the way NSKeyedArchiver lays it out."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def cls(self, *names):
        if names not in self.classes:
            self.classes[names] = self.add({"$classname": names[0], "$classes": list(names) + ["NSObject"]})
        return self.classes[names]

    def array(self, refs):
        return self.add({"$class": self.cls("NSArray"), "NS.objects": list(refs)})

    def dictionary(self, keys, values):
        return self.add({"$class": self.cls("NSDictionary"), "NS.keys": keys, "NS.objects": values})

    def finish(self, root, **top):
        top = dict(top, root=root)
        return {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": top, "$objects": self.objects}


def archives():
    # A FuzzCreature with every field, a friend, children pointing back, a point.
    a = Archive()
    parent = a.add(None)  # placeholder, filled below (NSKeyedArchiver numbers parents first)
    name = a.add("Potato Bug")
    tags = a.array([a.add("six"), a.add("legs")])
    point = a.add({"$class": a.cls("FuzzPoint"), "x": -3, "y": 2.5, "label": a.add("home")})
    scores = a.dictionary([a.add("speed"), a.add("fear")], [a.add(9), a.add(-1)])
    data = a.add({"$class": a.cls("NSData"), "NS.data": b"\x01\x02\x03"})
    born = a.add({"$class": a.cls("NSDate"), "NS.time": 730000000.5})
    child_fields = {"$class": a.cls("FuzzCreature"), "name": a.add("child"), "parent": parent, "legs": 2}
    child = a.add(child_fields)
    friend = a.add({"$class": a.cls("FuzzCreature"), "name": name, "friend": parent})
    children = a.array([child, child])
    a.objects[parent.data] = {"$class": a.cls("FuzzCreature"), "name": name, "legs": 6, "weight": 0.25,
                              "scary": True, "tags": tags, "friend": friend, "home": point,
                              "scores": scores, "data": data, "born": born, "children": children,
                              "bytes": b"raw bytes"}
    yield a.finish(parent, version=3)

    # Standard types at the root: arrays, sets, dictionaries, UUID, URL, numbers, null.
    a = Archive()
    uuid = a.add({"$class": a.cls("NSUUID"), "NS.uuidbytes": bytes(range(16))})
    url = a.add({"$class": a.cls("NSURL"), "NS.base": plistlib.UID(0), "NS.relative": a.add("https://example.com/x")})
    null = a.add({"$class": a.cls("NSNull")})
    st = a.add({"$class": a.cls("NSSet"), "NS.objects": [a.add(1), a.add(2)]})
    mstr = a.add({"$class": a.cls("NSMutableString", "NSString"), "NS.string": "mutable"})
    root = a.array([uuid, url, null, st, mstr, a.add(3.5), a.add(True), a.add(2**40)])
    yield a.finish(root)

    # A point at the root (a struct), and an array of points.
    a = Archive()
    p = a.add({"$class": a.cls("FuzzPoint"), "x": 2147483647, "y": -0.0})
    yield a.finish(p)
    a = Archive()
    pts = [a.add({"$class": a.cls("FuzzPoint"), "x": i, "y": i / 2}) for i in range(4)]
    yield a.finish(a.array(pts))

    # A shared-reference bomb: each array holds the previous one twice.
    a = Archive()
    prev = a.add("leaf")
    for _ in range(30):
        prev = a.array([prev, prev])
    yield a.finish(prev)

    # A cycle without a back reference: must fail with unresolvableCycle, not hang.
    a = Archive()
    me = a.add(None)
    a.objects[me.data] = {"$class": a.cls("FuzzCreature"), "friend": me}
    yield a.finish(me)

    # An unknown class and a class that does not support secure coding.
    a = Archive()
    yield a.finish(a.add({"$class": a.cls("FuzzInsecure")}))
    a = Archive()
    yield a.finish(a.add({"$class": a.cls("Some.Unknown", "Some.Base"), "field": a.add("x")}))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    target, out = sys.argv[1], sys.argv[2]
    kinds = {"FuzzBinary": ["binary"], "FuzzXML": ["xml"], "FuzzOpenStep": ["openstep"],
             "FuzzUnarchiver": ["unarchiver"], "FuzzRoundTrip": ["binary", "xml", "roundtrip"],
             "FuzzStreamed": ["binary", "xml", "openstep", "json"],
             "FuzzCodable": ["codable"], "FuzzTypedStream": ["typedstream"],
             "FuzzIMessageBody": ["typedstream"], "FuzzSQLite": ["sqlite"]}
    if target == "FuzzSQLite":
        write_seeds(target, out, generated_databases())
        return
    if target not in kinds:
        sys.exit(f"unknown target {target}; one of {', '.join(kinds)}")
    wanted = kinds[target]
    os.makedirs(out, exist_ok=True)
    seeds = []
    if target in ("FuzzTypedStream", "FuzzIMessageBody"):
        seeds.extend(typedstream_fixtures())
        seeds.extend(generated_typedstreams())
    for data in (fixture_files() if target not in ("FuzzTypedStream", "FuzzIMessageBody") else []):
        kind = kind_of(data)
        if target in ("FuzzUnarchiver", "FuzzCodable"):
            if b"$archiver" in data or b"$objects" in data:
                seeds.append(data)
        elif kind in wanted:
            seeds.append(data)
    for kind in wanted + (["binary", "xml"] if target == "FuzzUnarchiver" else []):
        seeds.extend(committed(kind))
    # Seeds/codable holds archives written by KeyedArchiveEncoder and encodeEncodable for
    # the fuzzer's model types (FuzzSupport/FuzzCodableTypes.swift).
    for kind in (["unarchiver"] if target in ("FuzzUnarchiver", "FuzzCodable") else wanted):
        if kind not in ("codable", "typedstream", "json"):
            seeds.extend(generated(kind))
    written = 0
    for data in seeds:
        if len(data) > MAX_SEED:
            continue
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(out, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            written += 1
    print(f"{target}: {written} new seeds in {out}")


def generated_databases():
    """Small databases (512-byte pages): rollback and WAL (database, `@WAL@`, WAL), rows
    deleted, a table dropped, overflow, WITHOUT ROWID, UTF-16."""
    import shutil
    import sqlite3
    import tempfile
    seeds = []
    folder = tempfile.mkdtemp()
    for index, (wal, encoding) in enumerate([(False, "UTF-8"), (True, "UTF-8"), (False, "UTF-16le")]):
        path = os.path.join(folder, "s%d.db" % index)
        c = sqlite3.connect(path, isolation_level=None)
        c.execute("PRAGMA secure_delete = OFF")
        c.execute("PRAGMA encoding = '%s'" % encoding)
        c.execute("PRAGMA page_size = 512")
        c.execute("PRAGMA journal_mode = %s" % ("WAL" if wal else "DELETE"))
        c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB, s TEXT, r REAL)")
        c.execute("CREATE TABLE w (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID")
        c.execute("CREATE TABLE d (x BLOB)")
        for i in range(12):
            c.execute("INSERT INTO t (b, s, r) VALUES (?, ?, ?)", (b"bplist00" + bytes(range(i * 20)), "s%d" % i, i / 3))
            c.execute("INSERT INTO w VALUES (?, ?)", ("k%d" % i, bytes([i]) * (i * 7)))
            c.execute("INSERT INTO d VALUES (?)", (bytes(40),))
        c.execute("DELETE FROM t WHERE id % 3 = 0")
        c.execute("DROP TABLE d")
        with open(path, "rb") as f:
            data = f.read()
        if wal:
            with open(path + "-wal", "rb") as f:
                data += b"@WAL@" + f.read()
        seeds.append(data)
        c.close()
    shutil.rmtree(folder, ignore_errors=True)
    return seeds


def write_seeds(target, out, seeds):
    os.makedirs(out, exist_ok=True)
    written = 0
    for data in seeds:
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(out, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            written += 1
    print(f"{target}: {written} new seeds in {out}")


if __name__ == "__main__":
    main()
