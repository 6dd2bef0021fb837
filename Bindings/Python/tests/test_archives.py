"""keyedarchive.unarchive against nska_deserialize (where it succeeds and the archive holds only
classes both read the same way), the natural values of Apple's classes, objects=True,
cycles and allowed classes; typedstreams and iMessage bodies against pytypedstream."""
import contextlib
import datetime
import io
import signal
import uuid

import pytest

import keyedarchive
import keyedarchive.typedstream
from conftest import REPOSITORY, fixture_files, ids, require

ARCHIVES = fixture_files("apple-keyed-archives")
TYPEDSTREAMS = [p for p in fixture_files("typedstream") if p.suffix == ".typedstream"]

# Classes both read as plain dicts, lists, strings, numbers, data and dates (nska_deserialize
# has no natural value for URLs, UUIDs, ordered sets, attributed strings, colours, …).
SHARED_SHAPE = {"NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSString",
                "NSMutableString", "NSData", "NSMutableData", "NSDate", "NSNumber", "NSSet", "NSMutableSet",
                "NSValue", "NSNotification", "_NSKeyedCoderOldStyleArray"}


def class_names(value, found):
    if isinstance(value, keyedarchive.ArchivedObject):
        found.add(value.class_name)
    if isinstance(value, dict):
        for item in value.values():
            class_names(item, found)
    elif isinstance(value, list):
        for item in value:
            class_names(item, found)
    return found


def without_class(value):
    if isinstance(value, dict):
        return {k: without_class(v) for k, v in value.items() if k != "$class"}
    if isinstance(value, list):
        return [without_class(v) for v in value]
    return value


def _timeout(*_):
    raise TimeoutError


@pytest.mark.parametrize("path", ARCHIVES, ids=ids(ARCHIVES))
def test_unarchive_equals_nska_deserialize(path):
    nska = pytest.importorskip("nska_deserialize", reason="nska_deserialize is not installed")
    data = path.read_bytes()
    ours = keyedarchive.unarchive(data)
    classes = class_names(keyedarchive.unarchive(data, objects=True), set())
    if not classes <= SHARED_SHAPE:
        pytest.skip(f"{path.name}: classes read differently by design: {sorted(classes - SHARED_SHAPE)}")
    previous = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(10)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            theirs = nska.deserialize_plist_from_string(data)
    except BaseException as error:  # it fails (or hangs) on some archives
        pytest.skip(f"nska_deserialize fails on {path.name}: {type(error).__name__}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert without_class(ours) == theirs, f"{path.name}: differs from nska_deserialize"


def fixture(name):
    require("apple-keyed-archives")
    return (REPOSITORY / ".." / "shared" / "fixtures" / "apple-keyed-archives" / name).read_bytes()


def test_natural_values_of_apple_classes():
    value = keyedarchive.unarchive(fixture("corelibs_NSKeyedUnarchiver-ComplexTest.plist"))
    assert value["array"][0] is None  # NSNull
    assert value["url"] == "https://www.swift.org/index.xml"  # NS.relative against NS.base
    assert value["uuid"] == uuid.UUID("71dc068e-3420-45ff-919e-3a267d55ec22")
    assert keyedarchive.unarchive(fixture("corelibs_macOS-10.14_NSOrderedSet-Numbers.archive")) == [1, 2, 3, 4, 5]
    text = keyedarchive.unarchive(fixture("corelibs_macOS-10.14_NSAttributedString.archive"))
    assert text["string"] == "0123456789" and text["$class"] == "NSAttributedString"
    assert "".join(run["text"] for run in text["runs"]) == "0123456789"
    colour = keyedarchive.unarchive(fixture(
        "wild_Python_DigitalDe_com.apple.Terminal.plist.embedded_Window_Settings__Novel__SelectionColor.bplist"))
    assert colour["space"] == "calibratedRGB" and len(colour["components"]) == 4


def test_objects_mode_keeps_class_names_and_identity():
    data = keyedarchive.dumps({
        "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": keyedarchive.UID(1)},
        "$objects": ["$null",
                     {"NS.objects": [keyedarchive.UID(2), keyedarchive.UID(2)], "$class": keyedarchive.UID(4)},
                     {"name": keyedarchive.UID(3), "$class": keyedarchive.UID(5)}, "Potato Bug",
                     {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]},
                     {"$classname": "Creature", "$classes": ["Creature", "NSObject"]}]},
        fmt=keyedarchive.FMT_BINARY)
    natural = keyedarchive.unarchive(data)
    assert natural == [{"$class": "Creature", "name": "Potato Bug"}] * 2
    root = keyedarchive.unarchive(data, objects=True)
    assert root.class_name == "NSArray" and root.uid == 1
    first, second = root["NS.objects"]
    assert first is second and first.class_name == "Creature" and first["name"] == "Potato Bug"
    assert keyedarchive.unarchive(data, allowed={"NSArray", "Creature"}) == natural
    with pytest.raises(keyedarchive.InvalidFileError) as caught:
        keyedarchive.unarchive(data, allowed={"NSArray"})
    assert caught.value.code == "classNotAllowed" and "Creature" in str(caught.value)
    assert caught.value.key_path == "$objects[2]"


def test_cycles_become_markers():
    data = keyedarchive.dumps({
        "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": keyedarchive.UID(1)},
        "$objects": ["$null", {"NS.objects": [keyedarchive.UID(1)], "$class": keyedarchive.UID(2)},
                     {"$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]}]},
        fmt=keyedarchive.FMT_BINARY)
    assert keyedarchive.unarchive(data) == [keyedarchive.Cycle(1)]
    root = keyedarchive.unarchive(data, objects=True)
    assert root["NS.objects"] == [keyedarchive.Cycle(1)] and root.uid == 1


def test_not_an_archive_raises():
    with pytest.raises(keyedarchive.InvalidFileError):
        keyedarchive.unarchive(keyedarchive.dumps({"a": 1}, fmt=keyedarchive.FMT_BINARY))
    with pytest.raises(keyedarchive.InvalidFileError):
        keyedarchive.unarchive(b"")


def pytypedstream_root(path):
    typedstream = pytest.importorskip("typedstream", reason="pytypedstream is not installed")
    try:
        return typedstream.unarchive_from_data(path.read_bytes())
    except Exception as error:
        pytest.skip(f"pytypedstream fails on {path.name}: {type(error).__name__}")


@pytest.mark.parametrize("path", TYPEDSTREAMS, ids=ids(TYPEDSTREAMS))
def test_typedstreams_against_pytypedstream(path):
    root = pytypedstream_root(path)
    ours = keyedarchive.typedstream.loads(path.read_bytes())
    name = getattr(getattr(root, "clazz", None), "name", None)
    if name in (b"NSAttributedString", b"NSMutableAttributedString"):
        text = root.contents[0].value.value
        assert ours["string"] == text, path.name
        body = keyedarchive.imessage_text(path.read_bytes())
        assert body["string"] == text, path.name
        runs = sum(1 for group in root.contents if len(group.values) == 2)
        assert len(body["runs"]) == runs, f"{path.name}: {len(body['runs'])} runs, pytypedstream {runs}"
        assert body["runs"] == ours["runs"]
    elif type(root).__name__ in ("NSString", "NSMutableString"):
        assert ours == root.value, path.name
    elif type(root).__name__ == "NSNumber":
        assert ours == root.value, path.name
    else:
        assert ours is not None


def test_imessage_text_refuses_other_roots():
    with pytest.raises(keyedarchive.InvalidFileError):
        keyedarchive.imessage_text(b"not a typedstream")
