"""keyedarchive.sqlite.blobs on databases made here with Python's sqlite3 module."""
import plistlib
import sqlite3

import pytest

import keyedarchive
import keyedarchive.sqlite

ARCHIVE = plistlib.dumps({
    "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
    "$objects": ["$null", {"NS.string": "Potato Bug", "$class": plistlib.UID(2)},
                 {"$classname": "NSMutableString", "$classes": ["NSMutableString", "NSString", "NSObject"]}]},
    fmt=plistlib.FMT_BINARY)


def make_database(path):
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=DELETE")
    connection.execute("CREATE TABLE creature (id INTEGER PRIMARY KEY, name TEXT, info BLOB, raw BLOB)")
    connection.execute("INSERT INTO creature VALUES (1, 'a', ?, ?)", (ARCHIVE, b"\x00\x01\x02"))
    connection.execute("INSERT INTO creature VALUES (2, 'b', ?, NULL)",
                       (plistlib.dumps({"legs": 6}, fmt=plistlib.FMT_BINARY),))
    connection.execute("INSERT INTO creature VALUES (3, 'c', ?, NULL)", (b"bplist00 broken",))
    connection.commit()
    connection.close()


def test_blobs_are_decoded_with_their_place(tmp_path):
    path = tmp_path / "creatures.sqlite"
    make_database(path)
    found = list(keyedarchive.sqlite.blobs(path))
    assert [(b.table, b.column, b.rowid, b.origin) for b in found] == [
        ("creature", "info", 1, "live"), ("creature", "raw", 1, "live"), ("creature", "info", 2, "live"),
        ("creature", "info", 3, "live")]
    assert found[0].kind == "keyed archive" and found[0].value == "Potato Bug"
    assert found[1].kind is None and found[1].data == b"\x00\x01\x02"
    assert found[2].kind == "property list" and found[2].value == {"legs": 6}
    assert found[3].error is not None and found[3].value is None


def test_recover_finds_deleted_rows(tmp_path):
    path = tmp_path / "deleted.sqlite"
    make_database(path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA secure_delete=OFF")
    connection.execute("DELETE FROM creature WHERE id = 1")
    connection.commit()
    connection.close()
    live = list(keyedarchive.sqlite.blobs(path))
    assert all(b.rowid != 1 for b in live)
    recovered = [b for b in keyedarchive.sqlite.blobs(path, recover=True) if b.origin != "live"]
    # The deleted row's archive is found whole in the freed cell (the freeblock header
    # overwrote only the cell's header), in its column.
    found = [b for b in recovered if b.data == ARCHIVE]
    assert found and found[0].table == "creature" and found[0].column == "info", recovered
    assert found[0].origin == "freeblock"
    assert found[0].kind == "keyed archive" and found[0].value == "Potato Bug", found[0]


def test_not_a_database_raises(tmp_path):
    path = tmp_path / "not.sqlite"
    path.write_bytes(b"this is not a database" * 10)
    with pytest.raises(keyedarchive.InvalidFileError):
        list(keyedarchive.sqlite.blobs(path))
    with pytest.raises(keyedarchive.InvalidFileError):
        list(keyedarchive.sqlite.blobs(tmp_path / "missing.sqlite"))


def make_many(path, count):
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB)")
    connection.executemany("INSERT INTO t VALUES (?, ?)",
                           ((i, i.to_bytes(4, "big") * 64) for i in range(1, count + 1)))
    connection.commit()
    connection.close()


def test_blobs_is_a_lazy_bounded_iterator(tmp_path):
    path = tmp_path / "many.sqlite"
    make_many(path, 5000)
    # The scan runs on its own thread at most a few dozen BLOBs ahead: the first batch
    # handed over is a small part of the 5,000, and the scan has not ended (no problems yet).
    stream = keyedarchive._keyedarchive._sqlite_open(str(path), False)
    first, reported = keyedarchive._keyedarchive._sqlite_next(stream)
    assert reported is None
    assert 1 <= len(first) <= 64
    assert first[0][2] == 1
    del stream  # stops the scan
    iterator = keyedarchive.sqlite.blobs(path)
    assert iter(iterator) is iterator
    blob = next(iterator)
    assert (blob.table, blob.column, blob.rowid, blob.data) == ("t", "data", 1, (1).to_bytes(4, "big") * 64)
    iterator.close()
    # Results unchanged: every BLOB, in order.
    problems = []
    found = list(keyedarchive.sqlite.blobs(path, problems=problems))
    assert [(b.rowid, b.data) for b in found] == [(i, i.to_bytes(4, "big") * 64) for i in range(1, 5001)]
    assert problems == []
    # Iterations abandoned half way neither hang nor fail.
    for _ in range(50):
        iterator = keyedarchive.sqlite.blobs(path, recover=True)
        for _, blob in zip(range(40), iterator):
            pass
        iterator.close()
