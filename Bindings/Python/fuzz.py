#!/usr/bin/env python3
"""A seeded mutation fuzz loop over the Python bindings (atheris needs a clang-built
CPython; this needs nothing): mutates the shared fixtures and the fuzzers' seeds (bit flips,
byte sets, cuts, splices, repeated chunks, interesting integers) and feeds each mutant to every
reader of the package in a child process, so that a crash (a signal) is caught and its input
saved under `Bindings/Python/.build/fuzz-crashes/`.

usage: Bindings/Python/fuzz.py [SECONDS] [SEED]     (default 60 seconds, seed 1)
"""
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
FIXTURES = REPOSITORY / ".." / "shared" / "fixtures"
CRASHES = HERE / ".build" / "fuzz-crashes"

CHILD = r"""
import os, sys, struct, keyedarchive, keyedarchive.typedstream
readers = [keyedarchive.loads, keyedarchive.unarchive, lambda d: keyedarchive.unarchive(d, objects=True),
           keyedarchive.typedstream.loads, keyedarchive.imessage_text,
           lambda d: keyedarchive.dumps(keyedarchive.loads(d), fmt=keyedarchive.FMT_BINARY)]
source = sys.stdin.buffer
while True:
    head = source.read(4)
    if len(head) < 4:
        break
    data = source.read(struct.unpack("<I", head)[0])
    for read in readers:
        try:
            read(data)
        except Exception:
            pass
    sys.stdout.write("."); sys.stdout.flush()
"""

INTERESTING = [b"\x00", b"\xff", b"\x7f", b"\x80", b"\xff\xff\xff\xff", b"\x00\x00\x00\x00\x00\x00\x00\x00",
               b"\x7f\xff\xff\xff\xff\xff\xff\xff", b"\x0f", b"\xd0", b"\xa0", b"\x80\x01"]


def seeds():
    folders = [FIXTURES / "plists", FIXTURES / "apple-keyed-archives", FIXTURES / "typedstream",
               FIXTURES / "malformed", REPOSITORY / "FuzzTesting" / "Seeds"]
    files = []
    for folder in folders:
        if folder.is_dir():
            files += [p for p in folder.rglob("*") if p.is_file() and p.suffix not in (".json", ".txt", ".md")
                      and p.stat().st_size < 200_000]
    return [p.read_bytes() for p in sorted(files)]


def mutate(rng, data, corpus):
    data = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        choice = rng.randrange(7)
        if not data:
            data += rng.choice(INTERESTING)
        elif choice == 0:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif choice == 1:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif choice == 2:
            i = rng.randrange(len(data))
            del data[i:i + rng.randrange(1, 64)]
        elif choice == 3:
            other = rng.choice(corpus)
            if other:
                i = rng.randrange(len(other))
                data[rng.randrange(len(data)):] = other[i:i + rng.randrange(1, 256)]
        elif choice == 4:
            i = rng.randrange(len(data))
            chunk = data[i:i + rng.randrange(1, 32)]
            data[i:i] = chunk * rng.randrange(1, 16)
        elif choice == 5:
            value = rng.choice(INTERESTING)
            i = rng.randrange(len(data))
            data[i:i + len(value)] = value
        else:
            data = data[:rng.randrange(len(data) + 1)]
    return bytes(data)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    corpus = seeds()
    if not corpus:
        sys.exit(f"no seeds (shared fixtures at {FIXTURES})")
    end = time.monotonic() + seconds
    runs = crashes = 0
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    while time.monotonic() < end:
        batch = [mutate(rng, rng.choice(corpus), corpus) for _ in range(500)]
        child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
        payload = b"".join(len(d).to_bytes(4, "little") + d for d in batch)
        out, err = child.communicate(payload, timeout=600)
        done = out.count(b".")
        runs += done
        if child.returncode != 0:
            crashes += 1
            CRASHES.mkdir(parents=True, exist_ok=True)
            path = CRASHES / f"crash-{int(time.time())}-{done}"
            path.write_bytes(batch[done] if done < len(batch) else b"")
            print(f"child ended with {child.returncode} on input {done} of the batch: saved {path}\n"
                  f"{err.decode(errors='replace')[-1500:]}", flush=True)
    print(f"{runs} inputs, each through {6} readers, {crashes} crashes", flush=True)
    sys.exit(1 if crashes else 0)


if __name__ == "__main__":
    main()
