"""keyedarchive.loads/dumps against plistlib: the same values on every shared fixture plist
and on seeded generated values, round trips both ways, plistlib's errors and formats."""
import datetime
import io
import plistlib
import random

import pytest

import keyedarchive
from conftest import fixture_files, ids, require, same

PLISTS = fixture_files("plists") + fixture_files("apple-keyed-archives")


@pytest.mark.parametrize("path", PLISTS, ids=ids(PLISTS))
def test_loads_equals_plistlib(path):
    data = path.read_bytes()
    try:
        expected = plistlib.loads(data)
    except Exception as error:  # plistlib refuses it (OpenStep, CF$UID, …): we only must not crash
        try:
            keyedarchive.loads(data)
        except plistlib.InvalidFileException:
            pass
        pytest.skip(f"plistlib cannot read {path.name}: {type(error).__name__}")
    ours = keyedarchive.loads(data)
    if not data.startswith(b"bplist"):
        # plistlib leaves XML's CF$UID dictionaries as they are; we read them as UIDs.
        ours = _uids_as_cf_uid(ours)
    assert same(ours, expected), f"{path.name}: values differ from plistlib's"


def _uids_as_cf_uid(value):
    if isinstance(value, dict):
        return {k: _uids_as_cf_uid(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_uids_as_cf_uid(v) for v in value]
    if isinstance(value, plistlib.UID):
        return {"CF$UID": value.data}
    return value


@pytest.mark.parametrize("path", PLISTS, ids=ids(PLISTS))
def test_round_trip_through_plistlib(path):
    try:
        value = plistlib.loads(path.read_bytes())
    except Exception:
        pytest.skip(f"plistlib cannot read {path.name}")
    for fmt in (keyedarchive.FMT_BINARY, keyedarchive.FMT_XML):
        if fmt is keyedarchive.FMT_XML and _has_xml_unsafe(value):
            continue
        ours = keyedarchive.dumps(value, fmt=fmt)
        if fmt is keyedarchive.FMT_BINARY:
            assert same(keyedarchive.loads(ours), value), f"{path.name} {fmt}: our own round trip"
        else:
            # A {"CF$UID": n} dictionary in XML is a UID, to us as to CoreFoundation.
            assert same(_uids_as_cf_uid(keyedarchive.loads(ours)), _uids_as_cf_uid(value)), f"{path.name} {fmt}"
        if fmt is keyedarchive.FMT_BINARY or not _has_uid(value):
            # plistlib reads XML's CF$UID as a dictionary.
            assert same(plistlib.loads(ours), value), f"{path.name} {fmt}: plistlib reads ours"
        try:
            theirs = plistlib.dumps(value, fmt=fmt)
        except (OverflowError, TypeError):
            continue  # integers beyond 64 bits, or UIDs in XML: plistlib cannot write them
        read = keyedarchive.loads(theirs)
        if fmt is keyedarchive.FMT_XML:
            read, value_compared = _uids_as_cf_uid(read), _uids_as_cf_uid(value)
        else:
            value_compared = value
        assert same(read, value_compared), f"{path.name} {fmt}: we read plistlib's"


def _has_uid(value):
    if isinstance(value, dict):
        return any(_has_uid(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_uid(v) for v in value)
    return isinstance(value, plistlib.UID)


def _has_xml_unsafe(value):
    """Values XML cannot carry exactly in plistlib: sub-second dates, NaN/inf reals (both
    libraries write them, but plistlib reads dates to the second), control characters."""
    if isinstance(value, dict):
        return any(_has_xml_unsafe(v) for v in value.values()) or any(_has_xml_unsafe(k) for k in value)
    if isinstance(value, list):
        return any(_has_xml_unsafe(v) for v in value)
    if isinstance(value, datetime.datetime):
        return value.microsecond != 0
    if isinstance(value, float):
        return value != value or value in (float("inf"), float("-inf"))
    if isinstance(value, str):
        return any(ord(c) < 32 and c not in "\t\n\r" for c in value) or "\r" in value
    return False


def generated(rng, depth=0):
    kinds = ["str", "int", "float", "bool", "bytes", "date", "uid"]
    if depth < 4:
        kinds += ["list", "dict"] * 2
    kind = rng.choice(kinds)
    if kind == "str":
        alphabet = "abcxyz é中😀<&>\"'"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
    if kind == "int":
        return rng.choice([0, 1, -1, 255, 256, 2**31, -(2**63), 2**63 - 1, 2**64 - 1, rng.randrange(-10**9, 10**9)])
    if kind == "float":
        return rng.choice([0.0, -0.0, 1.5, 1e300, -2.5e-300, rng.random() * 1e6])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "bytes":
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
    if kind == "date":
        return datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=rng.randrange(-10**9, 10**9))
    if kind == "uid":
        return plistlib.UID(rng.randrange(0, 2**32))
    if kind == "list":
        return [generated(rng, depth + 1) for _ in range(rng.randrange(0, 6))]
    return {generated_key(rng): generated(rng, depth + 1) for _ in range(rng.randrange(0, 6))}


def generated_key(rng):
    return "".join(rng.choice("kéy_$0") for _ in range(rng.randrange(0, 6)))


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("fmt", ["binary", "xml"])
def test_generated_values_round_trip(seed, fmt):
    rng = random.Random(seed)
    value = {"root": generated(rng)}
    form = keyedarchive.FMT_BINARY if fmt == "binary" else keyedarchive.FMT_XML
    if fmt == "xml":
        # plistlib's XML has no UID.
        value = _without_uids(value)
    ours = keyedarchive.dumps(value, fmt=form)
    theirs = plistlib.dumps(value, fmt=form)
    assert same(plistlib.loads(ours), value), f"seed {seed}: plistlib reads our {fmt} differently"
    assert same(keyedarchive.loads(theirs), value), f"seed {seed}: we read plistlib's {fmt} differently"
    assert same(keyedarchive.loads(ours), value), f"seed {seed}: our own round trip differs"


def _without_uids(value):
    if isinstance(value, dict):
        return {k: _without_uids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_uids(v) for v in value]
    if isinstance(value, plistlib.UID):
        return value.data
    return value


def test_xml_cf_uid_and_openstep_which_plistlib_lacks():
    xml = b"<plist><dict><key>r</key><dict><key>CF$UID</key><integer>7</integer></dict></dict></plist>"
    assert keyedarchive.loads(xml) == {"r": plistlib.UID(7)}
    assert keyedarchive.loads(b'{ name = "Potato Bug"; legs = (1, 2); raw = <0fbd>; }') == {
        "name": "Potato Bug", "legs": ["1", "2"], "raw": b"\x0f\xbd"}
    assert keyedarchive.loads(b"(a, b)", fmt=keyedarchive.FMT_OPENSTEP) == ["a", "b"]


def test_load_and_dump_with_files():
    stream = io.BytesIO()
    keyedarchive.dump({"a": [1, 2]}, stream, fmt=keyedarchive.FMT_BINARY)
    assert stream.getvalue().startswith(b"bplist00")
    stream.seek(0)
    assert keyedarchive.load(stream) == {"a": [1, 2]}
    assert keyedarchive.dumps({"b": 1, "a": 2}).startswith(b"<?xml")


def test_sort_keys_and_skipkeys():
    data = keyedarchive.dumps({"b": 1, "a": 2}, fmt=keyedarchive.FMT_XML, sort_keys=False)
    assert data.index(b"<key>b</key>") < data.index(b"<key>a</key>")
    data = keyedarchive.dumps({"b": 1, "a": 2}, fmt=keyedarchive.FMT_XML)
    assert data.index(b"<key>a</key>") < data.index(b"<key>b</key>")
    assert keyedarchive.loads(keyedarchive.dumps({1: 2, "k": 3}, skipkeys=True)) == {"k": 3}
    with pytest.raises(TypeError):
        keyedarchive.dumps({1: 2})


def test_errors_are_plistlib_errors_with_location():
    with pytest.raises(plistlib.InvalidFileException) as caught:
        keyedarchive.loads(b"<plist><integer>x</integer></plist>")
    error = caught.value
    assert isinstance(error, keyedarchive.InvalidFileError)
    assert error.code == "corruptData"
    assert error.line == 1 and error.column is not None
    assert "x" in str(error) and "line 1" in str(error)
    with pytest.raises(keyedarchive.InvalidFileError) as caught:
        keyedarchive.loads(b"bplist00" + b"\0" * 40)
    assert caught.value.offset is not None
    with pytest.raises(keyedarchive.InvalidFileError):
        keyedarchive.loads(b"{ a = ", fmt=keyedarchive.FMT_OPENSTEP)
    with pytest.raises(keyedarchive.InvalidFileError):
        keyedarchive.loads(b"bplist00", fmt=keyedarchive.FMT_XML)


def test_unwritable_values_raise():
    with pytest.raises(TypeError):
        keyedarchive.dumps(None)
    with pytest.raises(TypeError):
        keyedarchive.dumps({"a": object()})
    cyclic = []
    cyclic.append(cyclic)
    with pytest.raises(RecursionError):
        keyedarchive.dumps(cyclic, fmt=keyedarchive.FMT_BINARY)
    with pytest.raises(OverflowError):
        keyedarchive.dumps(2**200)
    with pytest.raises(ValueError):
        keyedarchive.dumps({}, fmt=keyedarchive.FMT_OPENSTEP)
    with pytest.raises(TypeError):
        keyedarchive.loads("text, not bytes")


def test_values_types_match_plistlib():
    value = {"s": "x", "i": 2**64 - 1, "n": -5, "f": 0.5, "t": True, "d": b"\0",
             "when": datetime.datetime(2024, 5, 1, 9, 30, 0, 250000), "u": plistlib.UID(5), "l": [], "e": {}}
    data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
    assert same(keyedarchive.loads(data), plistlib.loads(data))
    assert keyedarchive.loads(bytearray(data)) == keyedarchive.loads(memoryview(data))


def test_aware_datetimes_are_written_in_utc():
    aware = datetime.datetime(2024, 5, 1, 11, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    assert keyedarchive.loads(keyedarchive.dumps(aware, fmt=keyedarchive.FMT_BINARY)) == datetime.datetime(
        2024, 5, 1, 9, 30)


def test_dates_match_plistlib_to_the_microsecond():
    # Our datetimes are built from fields in Swift; plistlib adds a timedelta. Same results,
    # fractions and negative times included, across years 1 to 9999.
    rng = random.Random(11)
    seconds = [0.0, -0.5, 0.5, 1e-7, -1e-7, 0.0000015, 0.0000025, -63113904000.0, 252423993599.999,
               978307200.123456789, -978307200.5]
    seconds += [rng.uniform(-6.3e10, 2.5e11) for _ in range(2000)]
    seconds += [rng.uniform(-1e6, 1e6) for _ in range(2000)]
    for value in seconds:
        data = _binary_date(value)
        try:
            expected = plistlib.loads(data)
        except OverflowError:
            with pytest.raises(OverflowError):
                keyedarchive.loads(data)
            continue
        assert keyedarchive.loads(data) == expected, f"{value!r} seconds since 2001"


def _binary_date(seconds):
    import struct
    # bplist00, one date object (0x33 + big-endian double), offset table, trailer.
    body = b"bplist00" + b"\x33" + struct.pack(">d", seconds)
    return body + bytes([8]) + struct.pack(">6xBBQQQ", 1, 1, 1, 0, len(body))


def test_dates_are_written_with_plistlibs_exact_seconds():
    # Naive datetimes are converted from their fields in the extension: the 8 bytes written
    # must be the double plistlib writes, `(value - datetime(2001, 1, 1)).total_seconds()`,
    # for any year and microsecond (beyond 285 years from 2001 the Python helper converts).
    rng = random.Random(11)
    values = [datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
              datetime.datetime(2001, 1, 1), datetime.datetime(2000, 12, 31, 23, 59, 59, 999999),
              datetime.datetime(1716, 3, 1, 0, 0, 0, 1), datetime.datetime(2286, 2, 28, 12, 0, 0, 999999)]
    values += [datetime.datetime(1, 1, 1) + datetime.timedelta(microseconds=rng.randrange(315537897600000000))
               for _ in range(3000)]
    for value in values:
        ours = keyedarchive.dumps(value, fmt=keyedarchive.FMT_BINARY)
        theirs = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
        assert ours[8] == theirs[8] == 0x33
        assert ours[9:17] == theirs[9:17], value


def test_keys_are_sorted_by_code_point_as_plistlib_sorts():
    keys = ["b", "a", "é", "z", "\ufffd", "\U0001F600", "\ufb01", "ä", "A", "", "aa", "\u00ff", "\u0100"]
    value = {key: index for index, key in enumerate(keys)}
    for fmt in (plistlib.FMT_XML, plistlib.FMT_BINARY):
        assert list(plistlib.loads(keyedarchive.dumps(value, fmt=fmt))) == sorted(keys)
    assert keyedarchive.dumps(value, fmt=plistlib.FMT_XML) == plistlib.dumps(value, fmt=plistlib.FMT_XML)
