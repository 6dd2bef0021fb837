#!/usr/bin/env python3
"""The Python reference for the SQLite benchmark: one process that opens every database
in a folder with sqlite3 (read-only), reads every BLOB of every table, and for each that
is a property list (binary or XML) writes one JSON line, as `keyed-archive decode --jsonl`
does: path, table, column, rowid and the value from plistlib.loads through json.dumps
(UIDs, data and dates made JSON-able). Keyed archives are not resolved: plistlib gives
their raw $objects, which is less work than the tool does.

usage: reference.py FOLDER > lines.jsonl
"""
import base64
import datetime
import json
import os
import plistlib
import sqlite3
import sys


def jsonable(value):
    if isinstance(value, plistlib.UID):
        return {"CF$UID": value.data}
    if isinstance(value, bytes):
        return {"data": base64.b64encode(value).decode()}
    if isinstance(value, datetime.datetime):
        return {"date": value.isoformat()}
    raise TypeError(type(value))


def main(folder):
    out = sys.stdout
    count = 0
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                if f.read(16) != b"SQLite format 3\0":
                    continue
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                cursor = db.execute('SELECT rowid, * FROM "%s"' % table.replace('"', '""'))
                columns = [d[0] for d in cursor.description][1:]
                for row in cursor:
                    for column, value in zip(columns, row[1:]):
                        if not isinstance(value, bytes):
                            continue
                        if not (value.startswith(b"bplist") or value.lstrip().startswith(b"<?xml")):
                            continue
                        try:
                            result = plistlib.loads(value)
                        except Exception as error:
                            line = {"path": path, "table": table, "column": column, "rowid": row[0],
                                    "error": str(error)}
                        else:
                            line = {"path": path, "table": table, "column": column, "rowid": row[0],
                                    "origin": "live", "result": result}
                        out.write(json.dumps(line, default=jsonable))
                        out.write("\n")
                        count += 1
            db.close()
    print(count, file=sys.stderr)


main(sys.argv[1])
