"""Hostile inputs through every reader of the package, in a child process, so that a crash
(a signal) is a test failure rather than the end of the test run: the shared malformed
fixtures, and the repository's fuzzer regression files and fuzzing seeds."""
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import FIXTURES, REPOSITORY

RUNNER = r"""
import sys, keyedarchive, keyedarchive.typedstream
readers = [keyedarchive.loads, keyedarchive.unarchive,
           lambda d: keyedarchive.unarchive(d, objects=True),
           keyedarchive.typedstream.loads, keyedarchive.imessage_text]
count = 0
for path in sys.argv[1:]:
    print(path, flush=True)
    data = open(path, "rb").read()
    for read in readers:
        try:
            read(data)
        except (ValueError, TypeError, OverflowError, RecursionError, MemoryError):
            pass  # InvalidFileError is a ValueError
        count += 1
print("done", count, flush=True)
"""


def hostile_files():
    folders = [FIXTURES / "malformed", REPOSITORY / "Tests" / "KeyedArchiveTests" / "Resources" / "FuzzRegressions",
               REPOSITORY / "FuzzTesting" / "Seeds", REPOSITORY / "FuzzTesting" / "corpus"]
    files = []
    for folder in folders:
        if folder.is_dir():
            files += sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix not in (".json", ".md"))
    return files


def test_hostile_inputs_raise_without_a_signal():
    files = hostile_files()
    if not files:
        pytest.skip(f"no hostile inputs found (shared fixtures at {FIXTURES})")
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    result = subprocess.run([sys.executable, "-c", RUNNER, *map(str, files)], capture_output=True, text=True,
                            env=env, timeout=600, cwd=tempfile.gettempdir())  # the installed package, not a source folder
    lines = result.stdout.splitlines()
    last = lines[-2] if len(lines) >= 2 else "(before the first file)"
    assert result.returncode == 0, (
        f"the child ended with {result.returncode} (a negative number is a signal) reading {last}:\n"
        f"{result.stderr[-2000:]}")
    assert lines[-1].startswith("done"), result.stdout[-500:]
    assert len(files) > 10
