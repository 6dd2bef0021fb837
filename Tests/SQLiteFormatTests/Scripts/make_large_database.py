#!/usr/bin/env python3
"""Makes a database over 1 GiB (crossing the lock-byte page) for the opt-in large test.

    make_large_database.py PATH

Prints the number of BLOBs and their total size, as Python's sqlite3 counts them."""
import os
import sqlite3
import sys

path = sys.argv[1]
for suffix in ("", "-journal", "-wal"):
    if os.path.exists(path + suffix):
        os.remove(path + suffix)
c = sqlite3.connect(path, isolation_level=None)
c.execute("PRAGMA page_size = 4096")
c.execute("PRAGMA journal_mode = OFF")
c.execute("PRAGMA synchronous = OFF")
c.execute("CREATE TABLE big (id INTEGER PRIMARY KEY, body BLOB, n INT)")
c.execute("BEGIN")
# 11,000 rows of 100 KB: about 1.1 GB, every BLOB an overflow chain of 25 pages.
c.execute(
    "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 11000) "
    "INSERT INTO big (body, n) SELECT randomblob(100000), i FROM k"
)
c.execute("CREATE TABLE tail (id INTEGER PRIMARY KEY, b BLOB)")
c.execute("INSERT INTO tail (b) VALUES (x'62706c6973743030')")
c.execute("COMMIT")
count, total = c.execute(
    "SELECT count(*), sum(length(b)) FROM (SELECT body AS b FROM big UNION ALL SELECT b FROM tail)"
).fetchone()
print(count, total)
c.close()
