"""The archives inside SQLite databases (iOS and macOS keep most of theirs there), read by the
library's own SQLite reader (no libsqlite3): ``keyedarchive.sqlite.blobs(path)``."""

from dataclasses import dataclass
from typing import Any, Optional

from . import _keyedarchive, imessage_text, loads, unarchive, typedstream, InvalidFileError

_TYPEDSTREAM = b"\x04\x0bstreamtyped"


@dataclass
class Blob:
    """One BLOB of a database, decoded.

    ``origin`` is ``live`` for a row of a table, or where a recovered BLOB was found:
    ``freeblock``, ``unallocated``, ``freelist``, ``wal-old``, ``journal``, ``orphan``
    (``table``, ``column`` and ``rowid`` are then ``None`` when unknown). ``kind`` is
    ``keyed archive``, ``property list``, ``attributed string`` (an iMessage body),
    ``typedstream`` or ``None`` (other bytes); ``value`` is the decoded value (or ``None``),
    ``error`` the reason a BLOB that looked like one of them did not decode.
    """

    table: Optional[str]
    column: Optional[str]
    rowid: Optional[int]
    origin: str
    page: int
    offset: int
    data: bytes
    kind: Optional[str] = None
    value: Any = None
    error: Optional[str] = None


def _decode(blob):
    data = blob.data
    try:
        if data.startswith(b"bplist") or data.lstrip().startswith(b"<?xml") or data.lstrip().startswith(b"<plist"):
            value = loads(data)
            if isinstance(value, dict) and "$archiver" in value and "$objects" in value:
                blob.kind, blob.value = "keyed archive", unarchive(data)
            else:
                blob.kind, blob.value = "property list", value
        elif data.startswith(_TYPEDSTREAM):
            try:
                blob.kind, blob.value = "attributed string", imessage_text(data)
            except InvalidFileError:
                blob.kind, blob.value = "typedstream", typedstream.loads(data)
    except (InvalidFileError, ValueError, RecursionError, OverflowError) as error:
        blob.error = str(error)
    return blob


def blobs(path, recover=False, problems=None):
    """Iterates the BLOBs of the database at ``path`` as :class:`Blob` values, decoded: live
    rows first (table and key order), then, with ``recover``, what deleted and older data
    (free space, the freelist, the WAL's older frames, the rollback journal) still holds.

    A lazy iterator: the database is scanned on a thread of its own, without the GIL, at
    most a few dozen BLOBs ahead of the iteration (memory stays bounded however large the
    database), and stopping the iteration early stops the scan. A damaged page is skipped,
    and its description appended to ``problems`` (a list) when one is given, once the scan
    has ended; a file that is not a database raises :class:`keyedarchive.InvalidFileError`
    when the iteration starts.
    """
    stream = _keyedarchive._sqlite_open(str(path), bool(recover))
    while True:
        found, reported = _keyedarchive._sqlite_next(stream)
        for fields in found:
            yield _decode(Blob(*fields))
        if reported is not None:
            if problems is not None:
                problems.extend(reported)
            return
