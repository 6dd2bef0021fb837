"""`python3 plistlib_convert.py IN OUT`: rewrites a property list as XML with plistlib, as the
peers benchmark's whole-process baseline for `keyed-archive -convert xml1`. plistlib refuses
UIDs in XML, so they become `{"CF$UID": n}` dictionaries, as Apple writes them."""

import plistlib
import sys


def without_uids(value):
    if isinstance(value, plistlib.UID):
        return {"CF$UID": value.data}
    if isinstance(value, dict):
        return {key: without_uids(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_uids(item) for item in value]
    return value


with open(sys.argv[1], "rb") as source:
    tree = without_uids(plistlib.load(source))
with open(sys.argv[2], "wb") as destination:
    plistlib.dump(tree, destination, fmt=plistlib.FMT_XML)
