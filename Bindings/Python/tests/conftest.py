"""Where the tests find their inputs: the repository (three folders up) and its shared fixtures
(`../shared/fixtures` relative to the repository's root, never copied into it)."""
import math
import os
import pathlib

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = (REPOSITORY / ".." / "shared" / "fixtures").resolve()


def fixture_files(folder, exclude_suffixes=(".json", ".txt", ".md")):
    """The files of a shared fixture folder, sorted; empty when the folder is absent."""
    path = FIXTURES / folder
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if p.is_file() and p.suffix not in exclude_suffixes)


def require(folder):
    """Skips the test, saying why, when the shared fixture folder is absent."""
    if not (FIXTURES / folder).is_dir():
        pytest.skip(f"shared fixtures not found at {FIXTURES / folder}")


def same(a, b):
    """Equality of plistlib values with NaN equal to NaN and types compared exactly."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def ids(paths):
    return [p.name for p in paths]


def pytest_report_header(config):
    return f"shared fixtures: {FIXTURES} ({'present' if FIXTURES.is_dir() else 'absent'})"


os.environ.setdefault("SWIFT_BACKTRACE", "enable=no")
