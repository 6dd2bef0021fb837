"""Writes the peers benchmark's inputs into a directory (deterministic: a fixed seed).

  small/NNNN.bplist   1,000 small binary plists (~0.9 KB each)
  openstep/NNNN.plist 1,000 small OpenStep (old-style) files
  generic.bplist      a ~5 MB generic plist (records of strings, numbers, dates, data)
  generic.xml         the same as XML
  archive.bplist      an archive-like plist of 10,000 model objects (30,000 objects) (UIDs, as NSKeyedArchiver writes)
  big-archive.bplist  a ~3.2 MB binary keyed archive (for whole-process -convert)
  lint.bplist         a ~1 KB binary plist (for process start)
"""

import datetime
import os
import plistlib
import random
import sys

NAMES = ["Potato Bug", "Ladybird", "Stag Beetle", "Firefly", "Dragonfly", "Mantis", "Cicada",
         "Weevil", "Hornet", "Water Strider", "Grasshopper", "Cockchafer", "Silverfish"]
EPOCH = datetime.datetime(2001, 1, 1)


def date(rng):
    return EPOCH + datetime.timedelta(seconds=rng.randrange(700_000_000))


def small(rng, index):
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
        "Token": bytes(rng.randrange(256) for _ in range(32)),
        "Tags": [rng.choice(NAMES) for _ in range(6)],
        "Window": {"X": rng.randrange(2000), "Y": rng.randrange(2000), "Width": rng.randrange(2000),
                   "Height": rng.randrange(2000), "Title": "Window %d" % index, "Visible": True},
        "Recent": [{"Path": "/Users/someone/Documents/file-%d.txt" % rng.randrange(100000),
                    "Opened": date(rng), "Count": rng.randrange(100)} for _ in range(5)],
        "Notes": "Ünïcødé note %d ✓" % index,
    }


def generic(rng, target_bytes):
    records = []
    total = 0
    index = 0
    while total < target_bytes:
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
            record["blob"] = bytes(rng.randrange(256) for _ in range(64))
            record["note"] = "ünïcødé %d ✓" % index
        records.append(record)
        total += 180
        index += 1
    return {"records": records, "count": len(records)}


def archive(rng, count):
    """What NSKeyedArchiver writes for an array of `count` small model objects."""
    UID = plistlib.UID
    objects = ["$null", None,
               {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]},
               {"$classname": "Creature", "$classes": ["Creature", "NSObject"]},
               {"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]}]
    members = []
    for index in range(count):
        model = len(objects)
        members.append(UID(model))
        objects.append({
            "$class": UID(3), "name": UID(model + 1), "created": UID(model + 2),
            "legs": rng.randrange(1000), "weight": rng.randrange(1_000_000) / 1000,
            "nocturnal": rng.random() < 0.5,
            "parent": UID(0 if index == 0 else 5 + 3 * rng.randrange(index)),
        })
        objects.append("%s #%d" % (NAMES[index % len(NAMES)], index))
        objects.append({"$class": UID(4), "NS.time": rng.randrange(700_000_000) + 0.25})
    objects[1] = {"$class": UID(2), "NS.objects": members}
    return {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1)},
            "$objects": objects}


def openstep(rng, index):
    def quoted(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    tags = ", ".join(quoted(rng.choice(NAMES)) for _ in range(6))
    recent = ",\n".join(
        '        { Path = "/Users/someone/file-%d.txt"; Count = %d; }' % (rng.randrange(100000), rng.randrange(100))
        for _ in range(5))
    return ("{\n"
            "    CFBundleIdentifier = org.example.app%d;\n"
            "    CFBundleName = %s;\n"
            "    CFBundleVersion = \"%d.%d.%d\";\n"
            "    Rating = %d;\n"
            "    Weight = %s;\n"
            "    Token = <%s>;\n"
            "    Tags = (%s);\n"
            "    Window = { X = %d; Y = %d; Width = %d; Height = %d; Title = \"Window %d\"; };\n"
            "    Recent = (\n%s\n    );\n"
            "    Notes = \"A note about item %d, with \\\"quotes\\\" and a tab\\t.\";\n"
            "}\n") % (index, quoted(rng.choice(NAMES)), rng.randrange(10), rng.randrange(100),
                      rng.randrange(1000), rng.randrange(1000), rng.randrange(1_000_000) / 1000,
                      bytes(rng.randrange(256) for _ in range(32)).hex(), tags, rng.randrange(2000),
                      rng.randrange(2000), rng.randrange(2000), rng.randrange(2000), index, recent, index)


def main(directory):
    rng = random.Random(18)
    os.makedirs(os.path.join(directory, "small"), exist_ok=True)
    os.makedirs(os.path.join(directory, "openstep"), exist_ok=True)

    def write(name, data):
        with open(os.path.join(directory, name), "wb") as file:
            file.write(data)

    for index in range(1000):
        write("small/%04d.bplist" % index, plistlib.dumps(small(rng, index), fmt=plistlib.FMT_BINARY))
        write("openstep/%04d.plist" % index, openstep(rng, index).encode())
    value = generic(rng, 5_000_000)
    data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
    write("generic.bplist", data)
    write("generic.xml", plistlib.dumps(value, fmt=plistlib.FMT_XML))
    write("archive.bplist", plistlib.dumps(archive(rng, 10_000), fmt=plistlib.FMT_BINARY))
    write("big-archive.bplist", plistlib.dumps(archive(rng, 17_000), fmt=plistlib.FMT_BINARY))
    write("lint.bplist", plistlib.dumps(small(rng, 0), fmt=plistlib.FMT_BINARY))


if __name__ == "__main__":
    main(sys.argv[1])
