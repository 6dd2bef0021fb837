"""Typedstreams (``NSArchiver``, NeXTSTEP): ``keyedarchive.typedstream.loads(data)``."""

from . import _keyedarchive


def loads(data):
    """The root object of a typedstream as Python values: ``NSString`` a ``str``,
    ``NSNumber`` a number, ``NSData`` ``bytes``, ``NSDate`` a ``datetime``, ``NSURL`` a
    ``str``, arrays and sets a ``list``, dictionaries a ``dict``, an attributed string
    ``{"string", "runs"}``, a colour or font a ``dict`` of its parts, any other class
    ``{"$class": name, "values": [...]}``. Raises :class:`keyedarchive.InvalidFileError`."""
    return _keyedarchive._typedstream_loads(data, False)
