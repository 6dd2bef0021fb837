"""The fast readers of binary input (`loads` and `unarchive` built straight from the bytes)
against the library's path, which `_fast_paths(False)` forces: the same value or the same
exception for every shared fixture, their binary forms, generated archives and thousands of
mutated inputs."""
import contextlib
import datetime
import plistlib
import random

import pytest

import keyedarchive
from keyedarchive import _keyedarchive
from conftest import fixture_files, require, same


def same_shared(a, b, seen=None):
    """`same`, visiting a pair of shared containers once (a "bomb" that the library's budget
    lets through expands to a million values, but is a few hundred objects)."""
    if seen is None:
        seen = set()
    if isinstance(a, (dict, list)) and type(a) is type(b):
        if (id(a), id(b)) in seen:
            return True
        seen.add((id(a), id(b)))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same_shared(a[k], b[k], seen) for k in a)
        return len(a) == len(b) and all(same_shared(x, y, seen) for x, y in zip(a, b))
    return same(a, b)


@contextlib.contextmanager
def slow_path():
    previous = _keyedarchive._fast_paths(False)
    try:
        yield
    finally:
        _keyedarchive._fast_paths(previous)


def outcome(function, data):
    try:
        return ("value", function(data))
    except Exception as error:  # every failure is an exception; its type and text must agree
        return ("error", type(error), str(error))


def agree(function, data):
    fast = outcome(function, data)
    with slow_path():
        slow = outcome(function, data)
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "value":
        assert same_shared(fast[1], slow[1]), (fast[1], slow[1])
    else:
        assert fast == slow


def binary_forms(paths):
    """Each readable file, and its binary form when it is another format."""
    for path in paths:
        data = path.read_bytes()
        yield data
        try:
            value = keyedarchive.loads(data)
            yield keyedarchive.dumps(value, fmt=keyedarchive.FMT_BINARY)
        except Exception:
            pass


def inputs():
    paths = fixture_files("plists") + fixture_files("malformed") + fixture_files("apple-keyed-archives")
    return list(binary_forms(paths))


def test_fixtures_agree():
    require("plists")
    for data in inputs():
        agree(keyedarchive.loads, data)
        agree(keyedarchive.unarchive, data)


def archive(count, seed):
    rng = random.Random(seed)
    objects = ["$null"]

    def add(value):
        objects.append(value)
        return plistlib.UID(len(objects) - 1)

    classes = [add({"$classname": name, "$classes": [name, "NSObject"]})
               for name in ("NSArray", "NSMutableDictionary", "NSMutableString", "NSDate", "NSData", "NSNull",
                            "Creature", "NSURL", "NSUUID", "NSSet")]
    items = []
    for i in range(count):
        name = add(rng.choice(["Title", "ünïcödé ✓", "x" * rng.randrange(1, 40)]))
        kind = rng.randrange(8)
        if kind == 0:
            items.append(add({"NS.keys": [name, add("b")], "NS.objects": [add(i), add(rng.random())],
                              "$class": classes[1]}))
        elif kind == 1:
            items.append(add({"NS.string": name, "$class": classes[2]}))
        elif kind == 2:
            items.append(add({"NS.time": rng.random() * 1e9, "$class": classes[3]}))
        elif kind == 3:
            items.append(add({"NS.data": bytes(rng.randrange(256) for _ in range(8)), "$class": classes[4]}))
        elif kind == 4:
            items.append(add({"legs": i, "name": name, "friend": rng.choice(items) if items else plistlib.UID(0),
                              "$class": classes[6]}))
        elif kind == 5:
            items.append(add({"NS.base": plistlib.UID(0), "NS.relative": add("https://example.com/a"),
                              "$class": classes[7]}))
        elif kind == 6:
            items.append(add({"NS.uuidbytes": bytes(range(16)), "$class": classes[8]}))
        else:
            items.append(add({"NS.objects": [name, plistlib.UID(0)], "$class": classes[9]}))
    root = add({"NS.objects": items, "$class": classes[0]})
    # A cycle: the first object names the root.
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)


def values(seed):
    rng = random.Random(seed)

    def value(depth):
        kind = rng.randrange(9 if depth < 3 else 6)
        if kind == 0:
            # 16-byte integers too (plistlib writes 2**63 and up so).
            return rng.choice([rng.randrange(-2**63, 2**63), rng.randrange(2**63, 2**64), 2**64 - 1, -1])
        if kind == 1:
            return rng.choice(["", "a", "ünï", "\U0001F600", "x" * 300, "Title"])
        if kind == 2:
            return rng.random() * 1e6
        if kind == 3:
            return rng.random() < 0.5
        if kind == 4:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(20)))
        if kind == 5:
            return datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=rng.randrange(10**8))
        if kind == 6:
            return [value(depth + 1) for _ in range(rng.randrange(8))]
        if kind == 7:
            return plistlib.UID(rng.randrange(2**32))
        return {rng.choice(["a", "b", "Title", f"k{rng.randrange(50)}"]): value(depth + 1)
                for _ in range(rng.randrange(8))}

    return plistlib.dumps({"root": value(0)}, fmt=plistlib.FMT_BINARY)


def test_generated_agree():
    for seed in range(20):
        agree(keyedarchive.unarchive, archive(60, seed))
        agree(keyedarchive.loads, archive(60, seed))
        agree(keyedarchive.loads, values(seed))


def test_mutations_agree():
    rng = random.Random(32)
    seeds = [archive(30, 1), archive(10, 2), values(3), values(4)]
    for _ in range(2500):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randrange(1, 4)):
            position = rng.randrange(len(data))
            data[position] = rng.choice([0, 1, 0xFF, 0x0F, 0x5F, 0xD4, 0xA2, 0x80, rng.randrange(256)])
        if rng.random() < 0.1:
            data = data[:rng.randrange(len(data))] + data[-32:]
        data = bytes(data)
        agree(keyedarchive.loads, data)
        agree(keyedarchive.unarchive, data)


def test_shared_objects_and_cycles():
    # A list referenced twice is one object, as plistlib gives it.
    value = keyedarchive.loads(plistlib.dumps({"a": [1, 2], "b": "x"}, fmt=plistlib.FMT_BINARY))
    assert value == {"a": [1, 2], "b": "x"}
    # A container that contains itself is the library's error, with its location.
    objects = bytearray(plistlib.dumps([[1]], fmt=plistlib.FMT_BINARY))
    with pytest.raises(keyedarchive.InvalidFileError):
        keyedarchive.loads(bytes(objects).replace(b"\xa1\x01", b"\xa1\x00", 1))


@pytest.mark.parametrize("entries", [[plistlib.UID(1)], [plistlib.UID(2), plistlib.UID(1)]])
def test_plain_references_to_themselves_raise(entries):
    # Found by fuzz.py: a plain `$objects` entry that is a reference to itself recursed
    # without end in the library path's converter (a segmentation fault); now an error.
    data = plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
                           "$objects": ["$null"] + entries}, fmt=plistlib.FMT_BINARY)
    for fast in (True, False):
        previous = _keyedarchive._fast_paths(fast)
        try:
            for objects in (False, True):
                with pytest.raises(keyedarchive.InvalidFileError):
                    keyedarchive.unarchive(data, objects=objects)
        finally:
            _keyedarchive._fast_paths(previous)


# Found by fuzz.py (seed 3): plain entries referring to each other in a cycle, with an object
# of a class the library summarises; the summary re-encoded the graph and recursed without end.
PLAIN_CYCLE_WITH_SUMMARY = bytes.fromhex(
    "62706c6973743030d40102030405063b3c582476657273696f6e58246f626a6563747359246172636869766572542474"
    "6f7012000186a0ad07080f101a1b1c24252b31343755246e756c6cd3090a0b0c0d0e584e53537472696e675624636c61"
    "73735c4e53417474726962757465738002800c800359537563636565646564d311120a131619574e532e6b6579735a4e"
    "532e6f626a65637473a2141580048005a2171880068009800b564e53466f6e74574e53436f6c6f72d41d1e1f0a202122"
    "23564e5353697a65584e5366466c616773564e534e616d65234026000000000000110d10800780085f10162e4170706c"
    "6553797374656d5549466f6e74426f6c64d2262728295a24636c6173736e616d655824636c6173736573564e53466f6e"
    "74a2282a584e534f626a656374d32c2d0a2e2f30574e5357686974655c4e53436f6c6f7253706163654230001003800a"
    "d226273233574e53436f6c6f72a2322ad2262735365c4e5344696374696f6e617279a2352ad2262738395f10124e5341"
    "747472696275746564537472696e67a23a2a5f10124e5341747472696275746564537472696e675f100f4e534b657965"
    "644172636869766572d13d3e54726f6f74800100080011001a0023002d003200370045004b0052005b0062006f007100"
    "73006f007f0086008e0099009c009e00a000a300a500a700a900b000b800c100c800d100d800e100e400e600e8010101"
    "060111011a01210124012d0134013c0149014c014e01500155015d0160016501720175017a018f019201a701b901bc01"
    "c10000000000000201000000000000003f000000000000000000000000000001c3")


def test_plain_cycle_with_a_summarised_class_raises_or_reads():
    for fast in (True, False):
        previous = _keyedarchive._fast_paths(fast)
        try:
            for objects in (False, True):
                agree_or_error = outcome(lambda d: keyedarchive.unarchive(d, objects=objects),
                                         PLAIN_CYCLE_WITH_SUMMARY)
                assert agree_or_error[0] in ("value", "error")
                if agree_or_error[0] == "error":
                    assert agree_or_error[1] is keyedarchive.InvalidFileError
        finally:
            _keyedarchive._fast_paths(previous)
