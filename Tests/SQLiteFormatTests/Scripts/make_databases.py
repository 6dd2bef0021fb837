#!/usr/bin/env python3
"""Makes the SQLite databases SQLiteFormatTests reads, with Python's sqlite3 as the reference.

    make_databases.py OUTDIR

Each scenario is a folder OUTDIR/NAME holding:
  db.sqlite (+ db.sqlite-wal or db.sqlite-journal)  the files to read, copied while the
      writer's connection is still open (Python checkpoints and deletes the WAL on close);
  expected.txt   every live row, one line each: TABLE <tab> ROWID (or -) <tab> VALUE...,
      a value being n, i:INT, r:16 hex digits of the IEEE bits, t:HEX of UTF-8, b:HEX;
  deleted.txt    the hex of BLOBs deleted, updated away or dropped that are still whole in
      the files (recovery should find them), one a line;
  live-blobs.txt TABLE <tab> COLUMN <tab> ROWID <tab> HEX for each live non-empty BLOB.
The list of scenarios is printed, one name a line.
"""
import ctypes
import ctypes.util
import os
import plistlib
import random
import shutil
import sqlite3
import struct
import sys

OUT = sys.argv[1]
SCENARIOS = []


def scenario(function):
    SCENARIOS.append(function)
    return function


def encode(value):
    if value is None:
        return "n"
    if isinstance(value, int):
        return "i:%d" % value
    if isinstance(value, float):
        return "r:" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "t:" + value.encode("utf-8", "surrogatepass").hex()
    return "b:" + bytes(value).hex()


def tables(connection):
    return [
        (name, sql)
        for name, sql in connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND rootpage > 0"
        )
    ]


def dump(connection, folder):
    lines = []
    blobs = []
    for name, sql in tables(connection):
        quoted = '"' + name.replace('"', '""') + '"'
        # Virtual generated columns are computed, not stored: left out.
        columns = [row[1] for row in connection.execute("PRAGMA table_xinfo(%s)" % quoted) if row[6] != 2]
        selected = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
        without_rowid = "WITHOUT ROWID" in sql.upper().replace("\n", " ")
        if without_rowid:
            rows = [(None,) + tuple(row) for row in connection.execute("SELECT %s FROM %s" % (selected, quoted))]
        else:
            rows = list(connection.execute("SELECT _rowid_, %s FROM %s" % (selected, quoted)))
        for row in rows:
            rowid = "-" if row[0] is None else str(row[0])
            lines.append("\t".join([name, rowid] + [encode(v) for v in row[1:]]))
            for column, value in zip(columns, row[1:]):
                if isinstance(value, bytes) and value:
                    blobs.append("\t".join([name, column, rowid, value.hex()]))
    with open(os.path.join(folder, "expected.txt"), "w") as f:
        f.write("".join(line + "\n" for line in sorted(lines)))
    with open(os.path.join(folder, "live-blobs.txt"), "w") as f:
        f.write("".join(line + "\n" for line in sorted(blobs)))


def folder_for(name):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    for entry in os.listdir(folder):
        os.remove(os.path.join(folder, entry))
    return folder


def copy_files(source, folder):
    for suffix in ("", "-wal", "-journal"):
        if os.path.exists(source + suffix):
            shutil.copyfile(source + suffix, os.path.join(folder, "db.sqlite" + suffix))


def write_deleted(folder, blobs):
    with open(os.path.join(folder, "deleted.txt"), "w") as f:
        f.write("".join(b.hex() + "\n" for b in blobs))


def connect(path):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA secure_delete = OFF")
    return connection


def work_path(name):
    path = os.path.join(OUT, "_work", name + ".sqlite")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for suffix in ("", "-wal", "-journal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def archive(rng, index):
    """A binary property list (what recovery looks for by signature)."""
    return plistlib.dumps(
        {"index": index, "name": "item %d" % index, "data": rng.randbytes(rng.randrange(8, 64))},
        fmt=plistlib.FMT_BINARY,
    )


def populate(connection, rng, page_size, rows=120):
    """The common schema: every serial type, an INTEGER PRIMARY KEY, quoted names, overflow
    BLOBs, a WITHOUT ROWID table, an ADD COLUMN with a default, a table to drop, and rows
    deleted. Returns the BLOBs deleted or dropped."""
    c = connection
    c.execute(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, small INT, big INTEGER, ratio REAL, "
        "name TEXT NOT NULL DEFAULT 'x', payload BLOB, note)"
    )
    c.execute(
        'CREATE TABLE "we""ird" ([a b] TEXT, `c` BLOB, \'d\' INT CHECK (d > -100000), '
        '"e" VARCHAR(20) COLLATE NOCASE, CONSTRAINT pk PRIMARY KEY ([a b], d)) WITHOUT ROWID'
    )
    c.execute("CREATE TABLE doomed (k INTEGER PRIMARY KEY, body BLOB)")
    c.execute("CREATE TABLE typed (x INTEGER PRIMARY KEY DESC, y DOUBLE, z NUMERIC, g AS (y * 2), s AS (z + 1) STORED)")
    c.execute("CREATE INDEX items_small ON items(small)")
    integers = [0, 1, -1, 127, 128, -129, 32767, 32768, 2**23, -(2**23) - 1, 2**31, 2**47, -(2**47) - 5, 2**63 - 1, -(2**63)]
    c.execute("BEGIN")
    for i in range(rows):
        size = rng.choice([0, 1, 9, 100, page_size // 3, page_size + 17, 3 * page_size + 5])
        payload = archive(rng, i) if i % 3 == 0 else rng.randbytes(size)
        c.execute(
            "INSERT INTO items (small, big, ratio, name, payload, note) VALUES (?, ?, ?, ?, ?, ?)",
            (
                i % 7,
                integers[i % len(integers)],
                [1.5, 3.0, -0.0, 1e300, 2.0**-1074, None][i % 6],
                "näme %d %s" % (i, "ü" * (i % 50)) + ("€𝄞" * rng.randrange(0, page_size // 8) if i % 17 == 0 else ""),
                payload,
                [None, 42, 2.5, "text", b"\x00\x01"][i % 5],
            ),
        )
        c.execute(
            'INSERT INTO "we""ird" VALUES (?, ?, ?, ?)',
            ("key %03d" % i, rng.randbytes(rng.choice([1, 40, page_size + 3])) if i % 4 else None, i * 3, "E%d" % i),
        )
        c.execute("INSERT INTO typed (y, z) VALUES (?, ?)", (i + 0.25 if i % 2 else i, str(i) if i % 3 else "%d.5" % i))
    dropped = []
    for i in range(rows // 3):
        body = rng.randbytes(rng.choice([12, 200, page_size + 100]))
        dropped.append(body)
        c.execute("INSERT INTO doomed (body) VALUES (?)", (body,))
    c.execute("COMMIT")
    c.execute("ALTER TABLE items ADD COLUMN added TEXT DEFAULT 'later'")
    c.execute("ALTER TABLE items ADD COLUMN counted INTEGER DEFAULT -7")
    c.execute("ALTER TABLE items ADD COLUMN plain BLOB")
    c.execute("INSERT INTO items (small, payload, added, counted) VALUES (99, x'0102', 'now', 5)")
    deleted = [
        bytes(row[0])
        for row in c.execute("SELECT payload FROM items WHERE id % 5 = 2 AND length(payload) >= 8")
    ]
    c.execute("DELETE FROM items WHERE id % 5 = 2")
    c.execute("DROP TABLE doomed")
    return deleted + dropped


def rollback_database(name, page_size, auto_vacuum="NONE", encoding=None, rows=120):
    @scenario
    def make():
        folder = folder_for(name)
        path = work_path(name)
        rng = random.Random(name)
        c = connect(path)
        if encoding:
            c.execute("PRAGMA encoding = '%s'" % encoding)
        c.execute("PRAGMA page_size = %d" % page_size)
        c.execute("PRAGMA auto_vacuum = %s" % auto_vacuum)
        c.execute("PRAGMA journal_mode = DELETE")
        deleted = populate(c, rng, page_size, rows)
        dump(c, folder)
        copy_files(path, folder)
        # Full auto-vacuum gives freed pages back to the file system: nothing to recover.
        write_deleted(folder, deleted if auto_vacuum != "FULL" else [])
        c.close()

    make.__name__ = name


for size in (512, 1024, 4096, 8192, 65536):
    rollback_database("rollback-%d" % size, size)
rollback_database("autovacuum-full", 1024, auto_vacuum="FULL")
rollback_database("autovacuum-incremental", 4096, auto_vacuum="INCREMENTAL")
rollback_database("utf16le", 1024, encoding="UTF-16le")
rollback_database("utf16be", 4096, encoding="UTF-16be")


@scenario
def wal():
    """Rows in the database file, rows only in the WAL (inserted, updated, deleted after the
    last checkpoint), files copied while the writer is open."""
    name = "wal"
    folder = folder_for(name)
    path = work_path(name)
    rng = random.Random(name)
    c = connect(path)
    c.execute("PRAGMA page_size = 1024")
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("PRAGMA wal_autocheckpoint = 0")
    deleted = populate(c, rng, 1024, rows=60)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.execute("CREATE TABLE walonly (id INTEGER PRIMARY KEY, blob BLOB, label TEXT)")
    for i in range(40):
        c.execute("INSERT INTO walonly (blob, label) VALUES (?, ?)", (archive(rng, 1000 + i), "w%d" % i))
    old = [bytes(r[0]) for r in c.execute("SELECT payload FROM items WHERE id % 4 = 1 AND length(payload) >= 8")]
    c.execute("UPDATE items SET payload = randomblob(50) WHERE id % 4 = 1")
    deleted += old
    for i in range(30):
        c.execute("INSERT INTO items (small, payload) VALUES (?, ?)", (i, rng.randbytes(300)))
    gone = [bytes(r[0]) for r in c.execute("SELECT blob FROM walonly WHERE id % 3 = 0")]
    c.execute("DELETE FROM walonly WHERE id % 3 = 0")
    deleted += gone
    dump(c, folder)
    copy_files(path, folder)
    write_deleted(folder, deleted)
    assert os.path.getsize(os.path.join(folder, "db.sqlite-wal")) > 0
    c.close()


@scenario
def wal_uncommitted():
    """A WAL whose last transaction never committed (its frames written by a cache spill):
    SQLite ignores the frames after the last commit frame."""
    name = "wal-uncommitted"
    folder = folder_for(name)
    path = work_path(name)
    rng = random.Random(name)
    c = connect(path)
    c.execute("PRAGMA page_size = 512")
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("PRAGMA wal_autocheckpoint = 0")
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)")
    for i in range(50):
        c.execute("INSERT INTO t (b) VALUES (?)", (rng.randbytes(100),))
    dump(c, folder)
    c.execute("PRAGMA cache_size = 2")
    c.execute("BEGIN")
    for i in range(400):
        c.execute("INSERT INTO t (b) VALUES (?)", (rng.randbytes(200),))
    c.execute("UPDATE t SET b = x'00' WHERE id < 40")
    copy_files(path, folder)
    write_deleted(folder, [])
    c.execute("ROLLBACK")
    c.close()


@scenario
def hot_journal():
    """A transaction that spilled changed pages into the database file, with its journal:
    reading must roll it back."""
    name = "hot-journal"
    folder = folder_for(name)
    path = work_path(name)
    rng = random.Random(name)
    c = connect(path)
    c.execute("PRAGMA page_size = 1024")
    c.execute("PRAGMA journal_mode = DELETE")
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB, s TEXT)")
    c.execute("BEGIN")
    for i in range(300):
        c.execute("INSERT INTO t (b, s) VALUES (?, ?)", (rng.randbytes(rng.choice([20, 300, 2500])), "s%d" % i))
    c.execute("COMMIT")
    dump(c, folder)
    with open(path, "rb") as f:
        before = f.read()
    c.execute("PRAGMA cache_size = 2")
    c.execute("BEGIN")
    c.execute("UPDATE t SET b = randomblob(700), s = 'changed'")
    c.execute("DELETE FROM t WHERE id > 250")
    copy_files(path, folder)
    write_deleted(folder, [])
    with open(os.path.join(folder, "db.sqlite"), "rb") as f:
        assert f.read() != before, "the transaction did not spill into the database file"
    assert os.path.exists(os.path.join(folder, "db.sqlite-journal"))
    c.execute("ROLLBACK")
    c.close()


def reference_dump(folder):
    """expected.txt and live-blobs.txt of `folder` from what SQLite itself reads of its files
    (copies: opening may roll a journal back or checkpoint a WAL)."""
    scratch = work_path(os.path.basename(folder) + "-reference")
    for suffix in ("", "-wal", "-journal"):
        if os.path.exists(os.path.join(folder, "db.sqlite" + suffix)):
            shutil.copyfile(os.path.join(folder, "db.sqlite" + suffix), scratch + suffix)
    c = sqlite3.connect(scratch)
    dump(c, folder)
    c.close()


def wal_checksum(data, s0, s1, big_endian):
    """SQLite's walChecksumBytes: 32-bit words in pairs, in the byte order the magic names."""
    words = struct.unpack((">%dI" if big_endian else "<%dI") % (len(data) // 4), data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


@scenario
def wal_big_endian():
    """The wal scenario's files with the WAL rewritten as a big-endian machine writes it
    (magic 0x377f0683, checksums over big-endian words): SQLite reads either."""
    name = "wal-big-endian"
    folder = folder_for(name)
    source = os.path.join(OUT, "wal")
    shutil.copyfile(os.path.join(source, "db.sqlite"), os.path.join(folder, "db.sqlite"))
    shutil.copyfile(os.path.join(source, "deleted.txt"), os.path.join(folder, "deleted.txt"))
    with open(os.path.join(source, "db.sqlite-wal"), "rb") as f:
        wal = bytearray(f.read())
    assert struct.unpack(">I", wal[0:4])[0] == 0x377F0682, "the wal scenario's WAL is not little-endian"
    page_size = struct.unpack(">I", wal[8:12])[0]
    old = wal_checksum(bytes(wal[0:24]), 0, 0, False)
    wal[0:4] = struct.pack(">I", 0x377F0683)
    new = wal_checksum(bytes(wal[0:24]), 0, 0, True)
    wal[24:32] = struct.pack(">II", *new)
    offset, frames = 32, 0
    while offset + 24 + page_size <= len(wal):
        frame = bytes(wal[offset : offset + 8]) + bytes(wal[offset + 24 : offset + 24 + page_size])
        old = wal_checksum(frame, old[0], old[1], False)
        if wal[offset + 8 : offset + 16] != wal[16:24] or struct.pack(">II", *old) != wal[offset + 16 : offset + 24]:
            break  # the log ends at its first invalid frame: the rest is left as it is
        new = wal_checksum(frame, new[0], new[1], True)
        wal[offset + 16 : offset + 24] = struct.pack(">II", *new)
        offset += 24 + page_size
        frames += 1
    assert frames > 0
    with open(os.path.join(folder, "db.sqlite-wal"), "wb") as f:
        f.write(wal)
    reference_dump(folder)
    with open(os.path.join(source, "expected.txt")) as a, open(os.path.join(folder, "expected.txt")) as b:
        assert a.read() == b.read(), "SQLite did not read the big-endian WAL as the little-endian one"


JOURNAL_MAGIC = bytes([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7])


@scenario
def super_journal():
    """A multi-database transaction: its journal ends with the name of its super-journal
    (as SQLite's writeSuperJournal writes it). Deleting the super-journal commits: with it
    gone the journal is not hot (the database holds the committed transaction), with it
    present the journal is played back. Folders super-journal-gone and -present."""
    gone, present = folder_for("super-journal-gone"), folder_for("super-journal-present")
    path = work_path("super-journal")
    rng = random.Random("super-journal")
    c = connect(path)
    c.execute("PRAGMA page_size = 1024")
    c.execute("PRAGMA journal_mode = DELETE")
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB, s TEXT)")
    c.execute("BEGIN")
    for i in range(300):
        c.execute("INSERT INTO t (b, s) VALUES (?, ?)", (rng.randbytes(rng.choice([20, 300, 2500])), "s%d" % i))
    c.execute("COMMIT")
    c.execute("PRAGMA cache_size = 2")
    c.execute("BEGIN")
    c.execute("UPDATE t SET b = randomblob(700), s = 'changed'")
    c.execute("DELETE FROM t WHERE id > 250")
    shutil.copyfile(path, os.path.join(present, "db.sqlite"))
    with open(path + "-journal", "rb") as f:
        journal = f.read()
    c.execute("COMMIT")
    shutil.copyfile(path, os.path.join(gone, "db.sqlite"))
    c.close()
    page_size = struct.unpack(">I", journal[24:28])[0]
    for folder, exists in ((gone, False), (present, True)):
        super_path = os.path.join(os.path.abspath(folder), "db-mj0123ABCD")
        name = super_path.encode()
        checksum = sum(b - 256 if b >= 128 else b for b in name) & 0xFFFFFFFF
        record = struct.pack(">I", 0x40000000 // page_size + 1) + name
        record += struct.pack(">II", len(name), checksum) + JOURNAL_MAGIC
        with open(os.path.join(folder, "db.sqlite-journal"), "wb") as f:
            f.write(journal + record)
        # A super-journal lists its child journals, NUL-terminated (an empty file counts as
        # absent for SQLite's unixAccess). SQLite may delete it after playback: made again.
        child = os.path.join(os.path.abspath(folder), "db.sqlite-journal").encode() + b"\0"
        for _ in range(2 if exists else 0):
            with open(super_path, "wb") as f:
                f.write(child)
            if not os.path.exists(os.path.join(folder, "expected.txt")):
                reference_dump(folder)
        if not exists:
            reference_dump(folder)
        write_deleted(folder, [])
    with open(os.path.join(gone, "expected.txt")) as a, open(os.path.join(present, "expected.txt")) as b:
        assert a.read() != b.read(), "the committed and the rolled-back states are the same"


def reserved_bytes_database(name, page_size, reserve):
    @scenario
    def make():
        folder = folder_for(name)
        library = ctypes.util.find_library("sqlite3")
        if library is None:
            return
        path = work_path(name)
        c = connect(path)
        c.execute("PRAGMA page_size = %d" % page_size)
        c.execute("CREATE TABLE seed (x)")
        c.close()
        # SQLITE_FCNTL_RESERVE_BYTES (38) through the C API, then VACUUM to apply it.
        lib = ctypes.CDLL(library)
        handle = ctypes.c_void_p()
        assert lib.sqlite3_open(path.encode(), ctypes.byref(handle)) == 0
        amount = ctypes.c_int(reserve)
        lib.sqlite3_file_control(handle, b"main", 38, ctypes.byref(amount))
        assert lib.sqlite3_exec(handle, b"VACUUM", None, None, None) == 0
        lib.sqlite3_close(handle)
        c = connect(path)
        c.execute("DROP TABLE seed")
        deleted = populate(c, random.Random(name), page_size, rows=60)
        dump(c, folder)
        copy_files(path, folder)
        with open(os.path.join(folder, "db.sqlite"), "rb") as f:
            assert f.read(21)[20] == reserve, "reserved bytes not set"
        write_deleted(folder, deleted)
        c.close()

    make.__name__ = name


reserved_bytes_database("reserved-32", 1024, 32)
reserved_bytes_database("reserved-8", 4096, 8)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    names = []
    for make in SCENARIOS:
        make()
        names.append(make.__name__.replace("_", "-"))
    shutil.rmtree(os.path.join(OUT, "_work"), ignore_errors=True)
    print("\n".join(names))
