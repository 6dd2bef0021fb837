#!/usr/bin/env python3
"""Reads the typedstream benchmark's 10,000 iMessage-like bodies with pytypedstream
(`pip install pytypedstream`) and with KeyedArchive's `benchmarks` executable, and prints
how many bodies per second each reads and the ratio.

usage: Benchmarks/typedstream-vs-pytypedstream.py [PATH-TO-benchmarks]
       (default .build/release/benchmarks; build it with
        swift build -c release --product benchmarks)
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

try:
    import typedstream
except ImportError:
    sys.exit("pytypedstream is not installed (pip install pytypedstream)")

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(".build", "release", "benchmarks")
if not os.path.exists(binary):
    sys.exit(f"{binary} not found: swift build -c release --product benchmarks")

with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "bodies.bin")
    subprocess.run([binary, "--write-imessage-bodies", path], check=True)
    data = open(path, "rb").read()
    bodies = []
    offset = 0
    while offset < len(data):
        (length,) = struct.unpack_from("<I", data, offset)
        bodies.append(data[offset + 4:offset + 4 + length])
        offset += 4 + length

    def read_all():
        runs = 0
        for body in bodies:
            root = typedstream.unarchive_from_data(body)
            runs += sum(1 for group in root.contents if len(group.values) == 2)
        return runs

    read_all()  # warm-up, and a check that every body reads
    times = []
    for _ in range(3):
        start = time.perf_counter()
        read_all()
        times.append(time.perf_counter() - start)
    python_seconds = sorted(times)[1]

    report = os.path.join(folder, "ours.json")
    subprocess.run([binary, "--filter", "typedstream/", "--no-memory", "--json", report], check=True,
                   stdout=subprocess.DEVNULL)
    result = json.load(open(report))["results"][0]
    ours_seconds = result["oursMedianSeconds"]

count = len(bodies)
print(f"{count} iMessage-like bodies (text + 3 attribute runs, {len(data) - 4 * count} bytes)")
print(f"pytypedstream {typedstream.__version__ if hasattr(typedstream, '__version__') else ''}: "
      f"{python_seconds * 1000:.1f} ms, {count / python_seconds:,.0f} bodies/s")
print(f"KeyedArchive IMessageBody: {ours_seconds * 1000:.2f} ms, {count / ours_seconds:,.0f} bodies/s")
print(f"ratio: {python_seconds / ours_seconds:.0f}x")
