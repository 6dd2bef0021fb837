#!/usr/bin/env python3
"""Writes the benchmark's databases: COUNT chat.db-like SQLite files in OUTDIR, each with
ROWS messages whose BLOBs are what iOS stores (keyed archives in `payload_data`, binary
and XML property lists in `properties`), plain BLOBs that hold no archive (PNG-like
thumbnails), and text. A
quarter of the rows are then deleted (secure_delete off), so that --recover has deleted
rows to find.

usage: make-databases.py OUTDIR COUNT ROWS
"""
import os
import plistlib
import random
import sqlite3
import sys

out, count, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out, exist_ok=True)
rng = random.Random(29)


def keyed_archive(i):
    # An NSDictionary of strings and numbers, an NSArray, an NSDate: as NSKeyedArchiver writes.
    objects = ["$null",
               {"NS.keys": [plistlib.UID(2), plistlib.UID(3), plistlib.UID(4), plistlib.UID(5)],
                "NS.objects": [plistlib.UID(6), plistlib.UID(7), plistlib.UID(8), plistlib.UID(10)],
                "$class": plistlib.UID(12)},
               "title", "count", "items", "sent",
               "message %d from %s" % (i, rng.choice(["Ada", "Grace", "Edsger", "Barbara"])),
               i,
               {"NS.objects": [plistlib.UID(9)] * 3, "$class": plistlib.UID(13)},
               "item-%d" % (i % 97),
               {"NS.time": 700000000.0 + i, "$class": plistlib.UID(14)},
               "unused",
               {"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]},
               {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]},
               {"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]}]
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                           "$top": {"root": plistlib.UID(1)}, "$objects": objects},
                          fmt=plistlib.FMT_BINARY)


def plain(i, fmt):
    return plistlib.dumps({"id": i, "name": "row %d" % i, "flags": [True, False, i % 3 == 0],
                           "score": i / 7.0, "tags": ["a", "b", "c%d" % (i % 11)]}, fmt=fmt)


for n in range(count):
    path = os.path.join(out, "db%03d.sqlite" % n)
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA secure_delete = OFF")
    c.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, date INTEGER, "
              "text TEXT, payload_data BLOB, properties BLOB, thumbnail BLOB)")
    c.execute("BEGIN")
    for i in range(rows):
        c.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (i + 1, "guid-%d-%d" % (n, i), 700000000 + i, "hello %d" % i,
                   keyed_archive(i) if i % 2 == 0 else None,
                   plain(i, plistlib.FMT_BINARY if i % 3 else plistlib.FMT_XML),
                   b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(56))))
    c.execute("COMMIT")
    c.execute("DELETE FROM message WHERE ROWID % 4 = 0")
    c.close()
