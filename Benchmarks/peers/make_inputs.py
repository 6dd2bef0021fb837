"""Writes the peers benchmark's inputs: several shapes of document, three seeds each.

  python3 make_inputs.py DIR [SHAPES] [SEEDS] [MEGABYTES]

SHAPES is a comma-separated list (default: every shape), SEEDS the number of seeds per shape
(default 3), MEGABYTES the size of each large document (default 5). For each shape and seed,
DIR/SHAPE-SEED/ holds

  small/NNNN.bplist   1,000 small documents of the shape (binary)
  small/NNNN.xml      the same as XML
  small/NNNN.plist    the same as OpenStep (old-style) text
  generic.bplist      a ~MEGABYTES MB document of the shape (binary)
  generic.xml         the same as XML
  generic.plist       the same as OpenStep text
  archive.bplist      a 10,000-object archive whose objects carry the shape's values (binary)
  archive.xml         the same as XML

and DIR/ holds the whole-process inputs: big-archive.bplist (a ~3.2 MB binary keyed archive,
for -convert) and lint.bplist (a ~1 KB binary plist, for process start).

The shapes (every scalar kind appears in every shape, in other proportions):

  flat      settings-like records: short ASCII strings, small numbers, one level of nesting
  nested    3-4 levels, arrays and dictionaries mixed at every level (~30% containers)
  strings   strings of 1-120 characters, ~12% of them non-ASCII (CJK, Greek, Cyrillic, emoji,
            `&`, `<`)
  numbers   integers from small to +/-2^62 (negatives), reals
  data      data of 8-256 bytes, occasionally 4 KB
  nonascii  non-ASCII keys (`größe`, `説明`) and values
  archive   NSKeyedArchiver-like documents: small archives, a large archive

OpenStep text cannot hold numbers, Booleans or dates: they are written as strings (as a
reader gives them back), and an archive's UIDs have no OpenStep form (no OpenStep archive).
Deterministic: each shape and seed has its own fixed random sequence.
"""

import datetime
import os
import plistlib
import random
import sys

NAMES = ["Potato Bug", "Ladybird", "Stag Beetle", "Firefly", "Dragonfly", "Mantis", "Cicada",
         "Weevil", "Hornet", "Water Strider", "Grasshopper", "Cockchafer", "Silverfish"]
EPOCH = datetime.datetime(2001, 1, 1)
ASCII_KEYS = [
    "CFBundleIdentifier", "CFBundleName", "Title", "Rating", "Weight", "Created", "Modified",
    "Token", "Tags", "Window", "Recent", "Notes", "id", "name", "label", "score", "active",
    "values", "blob", "note", "X", "Y", "Width", "Height", "Visible", "Path", "Opened", "Count",
    "NSHighResolutionCapable", "LSMinimumSystemVersion", "kind", "owner", "parent", "children",
    "url", "version", "enabled", "color", "size", "flags", "order", "group", "items", "meta",
    "timestamp", "checksum", "description", "identifier", "status", "priority",
]
FOREIGN_KEYS = [
    "größe", "説明", "名前", "Ärger", "überschrift", "ключ", "значение", "όνομα", "μέγεθος",
    "日付", "数量", "📎附件", "café", "naïve", "Ωmega", "страница", "キー", "설명", "🙂", "Zürich",
]
# Characters a non-ASCII (or XML-hostile) string draws some of its characters from.
SPECIAL = list("説明名前日付数量漢字テスト") + list("αβγδεζηθλμπσω") + list("абвгдежзийклмн") + \
    ["😀", "🐞", "✓", "🙂", "👍🏽"] + list("éüößñ") + ["&", "<", ">", "\"", "'"]
ASCII_TEXT = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 -_./:"
SHAPES = ["flat", "nested", "strings", "numbers", "data", "nonascii", "archive"]


def date(rng):
    return EPOCH + datetime.timedelta(seconds=rng.randrange(700_000_000))


class Values:
    """Scalars, keys and containers drawn with a shape's proportions."""

    def __init__(self, rng, shape):
        self.rng = rng
        self.shape = shape
        # Weights: string, integer, real, bool, date, data.
        self.weights = {
            "flat": [40, 25, 10, 10, 10, 5],
            "nested": [35, 20, 10, 10, 10, 15],
            "strings": [85, 5, 3, 2, 3, 2],
            "numbers": [8, 55, 30, 3, 3, 1],
            "data": [15, 10, 5, 5, 5, 60],
            "nonascii": [60, 15, 5, 5, 5, 10],
            "archive": [40, 25, 15, 10, 5, 5],
        }[shape]

    def string(self):
        rng = self.rng
        if self.shape in ("flat", "archive") and rng.random() < 0.7:
            return "%s #%d" % (rng.choice(NAMES), rng.randrange(100000))
        length = rng.randrange(1, 121) if self.shape != "numbers" else rng.randrange(1, 24)
        foreign = 0.5 if self.shape == "nonascii" else 0.12
        if rng.random() < foreign:
            return "".join(rng.choice(SPECIAL) if rng.random() < 0.4 else rng.choice(ASCII_TEXT)
                           for _ in range(length))
        return "".join(rng.choice(ASCII_TEXT) for _ in range(length))

    def integer(self):
        rng = self.rng
        roll = rng.random()
        if self.shape != "numbers" and roll < 0.7:
            return rng.randrange(1000)
        if roll < 0.3:
            return rng.randrange(-128, 256)
        if roll < 0.5:
            return rng.randrange(-(1 << 31), 1 << 31)
        magnitude = rng.randrange(1 << rng.randrange(8, 63))
        return -magnitude if rng.random() < 0.4 else magnitude

    def real(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.4:
            return rng.randrange(1_000_000) / 1000
        if roll < 0.7:
            return rng.uniform(-1e9, 1e9)
        return rng.choice([-1, 1]) * rng.random() * 10 ** rng.randrange(-30, 30)

    def data(self):
        rng = self.rng
        length = 4096 if rng.random() < (0.03 if self.shape == "data" else 0.01) else rng.randrange(8, 257)
        return rng.randbytes(length)

    def scalar(self):
        kind = self.rng.choices(range(6), self.weights)[0]
        if kind == 0:
            return self.string()
        if kind == 1:
            return self.integer()
        if kind == 2:
            return self.real()
        if kind == 3:
            return self.rng.random() < 0.5
        if kind == 4:
            return date(self.rng)
        return self.data()

    def key(self):
        rng = self.rng
        if self.shape == "nonascii" and rng.random() < 0.5:
            key = rng.choice(FOREIGN_KEYS)
        elif self.shape == "strings" and rng.random() < 0.2:
            key = self.string()[:40]
        else:
            key = rng.choice(ASCII_KEYS)
        return key if rng.random() < 0.7 else "%s%d" % (key, rng.randrange(100))

    def dictionary(self, count, depth, containers):
        entries = {}
        for _ in range(count):
            entries[self.key()] = self.value(depth, containers)
        return entries

    def value(self, depth, containers):
        rng = self.rng
        if depth > 0 and rng.random() < containers:
            if rng.random() < 0.5:
                return [self.value(depth - 1, containers) for _ in range(rng.randrange(0, 9))]
            return self.dictionary(rng.randrange(0, 11), depth - 1, containers)
        return self.scalar()

    def document(self, index):
        """A small document (~1 KB) of the shape."""
        rng = self.rng
        if self.shape == "flat":
            return flat_small(rng, index)
        if self.shape == "archive":
            return archive(self, rng.randrange(4, 12))
        if self.shape == "nested":
            return self.dictionary(rng.randrange(4, 10), rng.randrange(3, 5), 0.3)
        count = {"strings": 16, "numbers": 40, "data": 6, "nonascii": 20}[self.shape]
        return self.dictionary(rng.randrange(count // 2, count * 3 // 2), 2, 0.12)

    def record(self, index):
        """One element of the large document."""
        rng = self.rng
        if self.shape == "flat":
            return flat_record(rng, index)
        if self.shape == "nested":
            return self.dictionary(rng.randrange(3, 9), rng.randrange(2, 4), 0.3)
        return self.dictionary(rng.randrange(4, 14), 1, 0.15)


def flat_small(rng, index):
    """A settings-like document: what apps keep in many small plists."""
    return {
        "CFBundleIdentifier": "org.example.app%d" % index,
        "CFBundleName": rng.choice(NAMES),
        "CFBundleVersion": "%d.%d.%d" % (rng.randrange(10), rng.randrange(100), rng.randrange(1000)),
        "LSMinimumSystemVersion": "10.%d" % rng.randrange(16),
        "NSHighResolutionCapable": rng.random() < 0.5,
        "Rating": rng.randrange(1000),
        "Weight": rng.randrange(1_000_000) / 1000,
        "Created": date(rng),
        "Modified": date(rng),
        "Token": rng.randbytes(32),
        "Tags": [rng.choice(NAMES) for _ in range(6)],
        "Window": {"X": rng.randrange(2000), "Y": rng.randrange(2000), "Width": rng.randrange(2000),
                   "Height": rng.randrange(2000), "Title": "Window %d" % index, "Visible": True},
        "Recent": [{"Path": "/Users/someone/Documents/file-%d.txt" % rng.randrange(100000),
                    "Opened": date(rng), "Count": rng.randrange(100)} for _ in range(5)],
        "Notes": "Ünïcødé note %d ✓" % index,
    }


def flat_record(rng, index):
    record = {
        "id": rng.randrange(1 << 31),
        "name": "%s #%d" % (rng.choice(NAMES), index),
        "label": "item-%d" % rng.randrange(1_000_000),
        "score": rng.randrange(1_000_000) / 1000,
        "active": rng.random() < 0.5,
        "created": date(rng),
        "values": [rng.randrange(1 << 16) for _ in range(4)],
    }
    if index % 10 == 0:
        record["blob"] = rng.randbytes(64)
        record["note"] = "ünïcødé %d ✓" % index
    return record


def archive(values, count):
    """What NSKeyedArchiver writes for an array of `count` small model objects, whose fields
    hold the shape's values."""
    rng = values.rng
    UID = plistlib.UID
    objects = ["$null", None,
               {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]},
               {"$classname": "Creature", "$classes": ["Creature", "NSObject"]},
               {"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]}]
    members = []
    for index in range(count):
        model = len(objects)
        members.append(UID(model))
        fields = {
            "$class": UID(3), "name": UID(model + 1), "created": UID(model + 2),
            "legs": values.integer(), "weight": values.real(),
            "nocturnal": rng.random() < 0.5,
            "parent": UID(0 if index == 0 else 5 + 3 * rng.randrange(index)),
        }
        for _ in range(rng.randrange(0, 3)):
            scalar = values.scalar()
            if not isinstance(scalar, (datetime.datetime, bytes)):
                fields[values.key()] = scalar
        objects.append(fields)
        objects.append(values.string())
        objects.append({"$class": UID(4), "NS.time": rng.randrange(700_000_000) + 0.25})
    objects[1] = {"$class": UID(2), "NS.objects": members}
    return {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1)},
            "$objects": objects}


def large(values, target_bytes):
    """A document of about `target_bytes` in binary: records of the shape in one array."""
    if values.shape == "archive":
        sample = plistlib.dumps(archive(values, 200), fmt=plistlib.FMT_BINARY)
        return archive(values, max(1, target_bytes * 200 // len(sample)))
    probe = [values.record(index) for index in range(200)]
    size = len(plistlib.dumps({"records": probe}, fmt=plistlib.FMT_BINARY))
    records = probe + [values.record(index) for index in range(200, max(200, target_bytes * 200 // size))]
    return {"records": records, "count": len(records), "shape": values.shape}


def xml_form(value):
    """plistlib refuses UIDs in XML: write them as Apple does, `{CF$UID = n}` dictionaries."""
    if isinstance(value, plistlib.UID):
        return {"CF$UID": value.data}
    if isinstance(value, dict):
        return {key: xml_form(item) for key, item in value.items()}
    if isinstance(value, list):
        return [xml_form(item) for item in value]
    return value


# What Apple's reader takes unquoted (no `+`).
BARE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$/:.-")


def openstep_string(text):
    # `//` and `/*` inside a bare word start a comment.
    if text and all(character in BARE for character in text) and "//" not in text and "/*" not in text:
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return '"' + escaped + '"'


def openstep(value, out):
    """Appends `value` as OpenStep text (scalars without an OpenStep form as strings)."""
    if isinstance(value, dict):
        out.append("{")
        for key, item in value.items():
            out.append(openstep_string(key))
            out.append(" = ")
            openstep(item, out)
            out.append("; ")
        out.append("}")
    elif isinstance(value, list):
        out.append("(")
        for index, item in enumerate(value):
            if index:
                out.append(", ")
            openstep(item, out)
        out.append(")")
    elif isinstance(value, bytes):
        out.append("<" + value.hex() + ">")
    elif isinstance(value, bool):
        out.append("YES" if value else "NO")
    elif isinstance(value, datetime.datetime):
        out.append(openstep_string(value.strftime("%Y-%m-%d %H:%M:%S +0000")))
    elif isinstance(value, str):
        out.append(openstep_string(value))
    else:
        out.append(openstep_string(repr(value)))


def openstep_text(value):
    out = []
    openstep(value, out)
    out.append("\n")
    return "".join(out).encode()


def write_shape(directory, shape, seed, megabytes):
    rng = random.Random("%s-%d" % (shape, seed))
    values = Values(rng, shape)
    folder = os.path.join(directory, "%s-%d" % (shape, seed))
    os.makedirs(os.path.join(folder, "small"), exist_ok=True)

    def write(name, data):
        with open(os.path.join(folder, name), "wb") as file:
            file.write(data)

    has_openstep = shape != "archive"
    for index in range(1000):
        document = values.document(index)
        write("small/%04d.bplist" % index, plistlib.dumps(document, fmt=plistlib.FMT_BINARY))
        write("small/%04d.xml" % index, plistlib.dumps(xml_form(document), fmt=plistlib.FMT_XML))
        if has_openstep:
            write("small/%04d.plist" % index, openstep_text(document))
    document = large(values, int(megabytes * 1_000_000))
    write("generic.bplist", plistlib.dumps(document, fmt=plistlib.FMT_BINARY))
    write("generic.xml", plistlib.dumps(xml_form(document), fmt=plistlib.FMT_XML))
    if has_openstep:
        write("generic.plist", openstep_text(document))
    document = archive(values, 10_000)
    write("archive.bplist", plistlib.dumps(document, fmt=plistlib.FMT_BINARY))
    write("archive.xml", plistlib.dumps(xml_form(document), fmt=plistlib.FMT_XML))


def main(directory, shapes=None, seeds="3", megabytes="5"):
    shapes = shapes.split(",") if shapes else SHAPES
    for shape in shapes:
        if shape not in SHAPES:
            raise SystemExit("unknown shape %r (known: %s)" % (shape, ", ".join(SHAPES)))
        for seed in range(int(seeds)):
            write_shape(directory, shape, seed, float(megabytes))
    rng = random.Random(18)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "big-archive.bplist"), "wb") as file:
        file.write(plistlib.dumps(archive(Values(rng, "flat"), 17_000), fmt=plistlib.FMT_BINARY))
    with open(os.path.join(directory, "lint.bplist"), "wb") as file:
        file.write(plistlib.dumps(flat_small(rng, 0), fmt=plistlib.FMT_BINARY))


if __name__ == "__main__":
    main(*sys.argv[1:])
