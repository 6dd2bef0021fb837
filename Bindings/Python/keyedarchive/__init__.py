"""Apple property lists and keyed archives, read and written by the Swift KeyedArchive library.

A drop-in for :mod:`plistlib`::

    import keyedarchive as plistlib          # or: from keyedarchive import loads, dumps
    value = plistlib.loads(data)             # binary, XML (with CF$UID) or OpenStep
    data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)

The values are plistlib's: ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``,
``bytes``, naive UTC ``datetime`` and :class:`plistlib.UID`. Every failure raises
:class:`InvalidFileError`, a subclass of :class:`plistlib.InvalidFileException`, with the
library's message and where in the input the problem is.
"""

import datetime as _datetime
import enum as _enum
import plistlib as _plistlib
import uuid as _uuid

from . import _keyedarchive

__all__ = [
    "FMT_XML", "FMT_BINARY", "FMT_OPENSTEP", "PlistFormat", "UID", "InvalidFileError",
    "load", "loads", "dump", "dumps", "unarchive", "imessage_text", "Cycle", "ArchivedObject",
]

UID = _plistlib.UID
FMT_XML = _plistlib.FMT_XML
FMT_BINARY = _plistlib.FMT_BINARY


class _OpenStep(_enum.Enum):
    FMT_OPENSTEP = 3


#: The old-style text format (``{ key = value; }``): read by :func:`loads`, not written.
FMT_OPENSTEP = _OpenStep.FMT_OPENSTEP
PlistFormat = _plistlib.PlistFormat


class InvalidFileError(_plistlib.InvalidFileException):
    """Raised for input the library refuses, as :class:`plistlib.InvalidFileException` is.

    Attributes: ``message`` (the library's text, with its location), ``code``
    (``corruptData``, ``limitExceeded``, ``classNotAllowed``, …), ``location`` (text such as
    ``byte 42`` or ``line 3, column 7`` or ``$objects[5]``, or ``None``), and the same split up:
    ``offset`` (a byte offset), ``line`` and ``column`` (text formats), ``key_path``
    (archives).
    """

    def __init__(self, message="Invalid file", code=None, location=None, offset=None, line=None,
                 column=None, key_path=None):
        ValueError.__init__(self, message)
        self.message = message
        self.code = code
        self.location = location
        self.offset = offset
        self.line = line
        self.column = column
        self.key_path = key_path


def _make_error(message, code, location, offset, line, column, key_path):
    return InvalidFileError(message, code, location, offset, line, column, key_path)


_REFERENCE_DATE = _datetime.datetime(2001, 1, 1)
_UTC = _datetime.timezone.utc


def _date_from_seconds(seconds):
    # As plistlib: naive, in UTC.
    return _REFERENCE_DATE + _datetime.timedelta(seconds=seconds)


def _seconds_from_date(value):
    if value.tzinfo is not None:
        value = value.astimezone(_UTC).replace(tzinfo=None)
    return (value - _REFERENCE_DATE).total_seconds()


def _uuid_from_bytes(data):
    return _uuid.UUID(bytes=bytes(data))


class Cycle:
    """Stands where :func:`unarchive` meets a reference back to an object that encloses it.

    ``uid`` is the index of that object in the archive's ``$objects``; with ``objects=True``
    the enclosing :class:`ArchivedObject` has the same ``uid``.
    """

    __slots__ = ("uid",)

    def __init__(self, uid):
        self.uid = uid

    def __repr__(self):
        return f"Cycle(uid={self.uid})"

    def __eq__(self, other):
        return isinstance(other, Cycle) and other.uid == self.uid

    def __hash__(self):
        return hash(("Cycle", self.uid))


class ArchivedObject(dict):
    """An archived object under ``unarchive(..., objects=True)``: a ``dict`` of its fields
    (or of its natural value's parts) with the archive's class name and object index."""

    __slots__ = ("class_name", "uid")

    def __repr__(self):
        return f"ArchivedObject({self.class_name!r}, uid={self.uid}, {dict.__repr__(self)})"


def _archived_object(class_name, uid, fields):
    result = ArchivedObject(fields)
    result.class_name = class_name
    result.uid = uid
    return result


_keyedarchive._setup(_make_error, UID, _datetime.datetime, _date_from_seconds, _seconds_from_date,
                     _uuid_from_bytes, Cycle, _archived_object)

_FORMAT_NUMBERS = {None: 0, FMT_XML: 1, FMT_BINARY: 2, FMT_OPENSTEP: 3}


def _format_number(fmt):
    try:
        return _FORMAT_NUMBERS[fmt]
    except (KeyError, TypeError):
        raise ValueError(f"Unsupported format: {fmt!r}") from None


def loads(value, *, fmt=None, dict_type=dict):
    """Reads a property list from ``bytes`` (or any bytes-like object), as
    :func:`plistlib.loads`; ``fmt=None`` detects binary, XML or OpenStep.

    Raises :class:`InvalidFileError` for malformed input. ``dict_type`` other than ``dict``
    converts every dictionary afterwards.
    """
    result = _keyedarchive._loads(value, _format_number(fmt))
    if dict_type is not dict:
        result = _convert_dicts(result, dict_type)
    return result


def load(fp, *, fmt=None, dict_type=dict):
    """Reads a property list from a binary file object, as :func:`plistlib.load`."""
    return loads(fp.read(), fmt=fmt, dict_type=dict_type)


def dumps(value, *, fmt=FMT_XML, sort_keys=True, skipkeys=False):
    """Writes ``value`` as a property list, as :func:`plistlib.dumps`.

    ``fmt`` is :data:`FMT_XML` (the default, as plistlib) or :data:`FMT_BINARY`; OpenStep is
    read only. Raises ``TypeError`` for a value no property list holds (``None``, a non-string
    key unless ``skipkeys``), ``OverflowError`` for an integer beyond 128 bits,
    ``RecursionError`` for a value nested deeper than 512 levels (or containing itself).
    """
    number = _format_number(fmt)
    if number == 0 or number == 3:
        raise ValueError(f"Unsupported format: {fmt!r} (write FMT_XML or FMT_BINARY)")
    return _keyedarchive._dumps(value, number, sort_keys, skipkeys)


def dump(value, fp, *, fmt=FMT_XML, sort_keys=True, skipkeys=False):
    """Writes ``value`` to a binary file object, as :func:`plistlib.dump`."""
    fp.write(dumps(value, fmt=fmt, sort_keys=sort_keys, skipkeys=skipkeys))


def _convert_dicts(value, dict_type):
    if isinstance(value, dict):
        return dict_type((key, _convert_dicts(item, dict_type)) for key, item in value.items())
    if isinstance(value, list):
        return [_convert_dicts(item, dict_type) for item in value]
    return value


def unarchive(data, allowed=None, objects=False):
    """Reads an ``NSKeyedArchiver`` archive (binary or XML) into Python values.

    By default Apple's classes become their natural values, in the shape
    ``nska_deserialize`` gives: ``NSArray``/``NSSet``/``NSOrderedSet`` a ``list``,
    ``NSDictionary`` a ``dict``, ``NSString`` a ``str``, ``NSNumber`` an ``int``/``float``/
    ``bool``, ``NSDate`` a naive UTC ``datetime``, ``NSData`` ``bytes``, ``NSURL`` its absolute
    string, ``NSUUID`` a :class:`uuid.UUID`, ``NSNull`` ``None``; classes the library reads as
    typed values become a ``dict`` of their parts with ``$class`` (an attributed string
    ``{"string", "runs": [{"range", "text", "attributes"}]}``, a colour ``{"text", "space",
    "components", "hex"}``, a font, an index set, …); any other object a ``dict`` of its
    fields with its class name under ``$class``.

    With ``objects=True`` every archived object is an :class:`ArchivedObject` (a ``dict`` of
    its raw fields with ``class_name`` and ``uid``), and an object referenced from several
    places is the same Python object at each.

    The result is ``$top["root"]``; an archive without one (Interface Builder's
    ``IB.objectdata``, Xcode's ``State``) gives a ``dict`` of its ``$top`` entries.

    A reference back to an object that encloses it (a cycle) is a :class:`Cycle` marker,
    never unbounded recursion. ``allowed`` (a set of class names) makes any other class
    raise :class:`InvalidFileError` (code ``classNotAllowed``) before any value is built;
    plain values (strings, numbers, data stored without a class) are always allowed.
    """
    return _keyedarchive._unarchive(data, allowed, bool(objects))


def imessage_text(blob):
    """The text and runs of an iMessage ``attributedBody`` (a typedstream):
    ``{"string": text, "runs": [{"range": [start, end], "text": ..., "attributes": {...}}]}``,
    ranges in UTF-16 units. Raises :class:`InvalidFileError`."""
    return _keyedarchive._imessage_text(blob)
