#!/usr/bin/env python3
"""Writes Tests/Samples/iOSExtract/, a small file-system extract laid out as an iOS
device's, for the forensic example of Documentation/CommandLineTool.md and its tests.

Every file is made here, with python3's plistlib (no device data): preferences as binary
property lists, a notes archive written as NSKeyedArchiver lays it out with a keyed
archive nested in an attachment's NS.data, a pairing record from NanoRegistry's
NRKeyedArchiver, a cache whose last object was cut off (a dangling reference) and a file
that is not a property list. Run it again to regenerate: the output is deterministic.
"""
import datetime, os, plistlib, shutil

UID = plistlib.UID
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "iOSExtract")
mobile = os.path.join(root, "private", "var", "mobile")
app = os.path.join(mobile, "Containers", "Data", "Application", "5A1B2C3D-0000-4000-8000-000000000001")


def write(path, value, fmt=plistlib.FMT_BINARY):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(plistlib.dumps(value, fmt=fmt, sort_keys=True))


class Archive:
    """$objects built as NSKeyedArchiver does: $null first, classes after first use."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return UID(len(self.objects) - 1)

    def cls(self, *chain):
        if chain[0] not in self.classes:
            self.classes[chain[0]] = self.add({"$classname": chain[0], "$classes": list(chain)})
        return self.classes[chain[0]]

    def data(self, archiver="NSKeyedArchiver", top="root"):
        return plistlib.dumps(
            {"$archiver": archiver, "$version": 100000, "$top": {top: UID(1)}, "$objects": self.objects},
            fmt=plistlib.FMT_BINARY, sort_keys=True)


def date(y, mo, d, h, mi):
    moment = datetime.datetime(y, mo, d, h, mi, tzinfo=datetime.timezone.utc)
    return (moment - datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)).total_seconds()


if os.path.isdir(root):
    shutil.rmtree(root)

# An attachment: a keyed archive of a location, as an app might store in NS.data.
place = Archive()
place.add(None)
place.objects[1] = {"$class": None, "name": place.add("Garden shed"), "latitude": 51.5, "longitude": -0.12}
place.objects[1]["$class"] = place.cls("Place", "NSObject")
attachment = place.data()

# The notes: an NSArray of Note objects, each with a title, an NSDate and an attachment.
notes = Archive()
notes.add(None)
items = []
for title, when, with_attachment in [("Potato bugs", date(2024, 5, 1, 9, 30), True),
                                     ("Moth count", date(2024, 6, 2, 21, 5), False),
                                     ("Snail trail", date(2024, 7, 3, 6, 45), False)]:
    note = notes.add(None)
    fields = {"title": notes.add(title), "created": notes.add(None)}
    notes.objects[fields["created"].data] = {"$class": notes.cls("NSDate", "NSObject"), "NS.time": when}
    if with_attachment:
        blob = notes.add({"$class": notes.cls("NSData", "NSObject"), "NS.data": attachment})
        fields["attachment"] = blob
    fields["$class"] = notes.cls("Note", "NSObject")
    notes.objects[note.data] = fields
    items.append(note)
notes.objects[1] = {"$class": notes.cls("NSArray", "NSObject"), "NS.objects": items}
os.makedirs(os.path.join(app, "Library", "Notes"), exist_ok=True)
with open(os.path.join(app, "Library", "Notes", "notes.archive"), "wb") as f:
    f.write(notes.data())

# The app's preferences: a plain binary plist whose LastState is a nested bplist.
write(os.path.join(app, "Library", "Preferences", "com.example.Notes.plist"), {
    "LastOpened": datetime.datetime(2024, 7, 3, 6, 50),
    "NoteCount": 3,
    "LastState": plistlib.dumps({"selected": 2, "scroll": 0.25}, fmt=plistlib.FMT_BINARY),
})

# A pairing record written by NanoRegistry's archiver ($archiver NRKeyedArchiver).
pairing = Archive()
pairing.add(None)
pairing.objects[1] = {"$class": pairing.cls("NRDevice", "NSObject"),
                      "name": pairing.add("Ada's Watch"), "paired": True}
os.makedirs(os.path.join(mobile, "Library", "NanoRegistry"), exist_ok=True)
with open(os.path.join(mobile, "Library", "NanoRegistry", "pairing.archive"), "wb") as f:
    f.write(pairing.data(archiver="NRKeyedArchiver", top="device"))

# A cache cut short: its last note refers to a title that was never written.
cut = Archive()
cut.add(None)
cut.objects[1] = {"$class": cut.cls("Note", "NSObject"), "title": cut.add("Half a note"), "body": UID(40)}
os.makedirs(os.path.join(mobile, "Library", "Caches"), exist_ok=True)
with open(os.path.join(mobile, "Library", "Caches", "draft.archive"), "wb") as f:
    f.write(cut.data())

# Not a property list at all.
with open(os.path.join(mobile, "Library", "Caches", "thumbnail.bin"), "wb") as f:
    f.write(bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D]))
