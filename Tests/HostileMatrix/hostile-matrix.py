#!/usr/bin/env python3
"""Runs every hostile input through every command of the release `keyed-archive` tool and
checks the bounds Documentation/Security.md promises for inputs under 64 KB: no signal, peak
resident size <= 160 MB, output <= 100 MB, at most 2 s of wall time.

Inputs: the hostile corpus (written by `HardeningProbe write-corpus`), the hand-made hostile
inputs under Tests/KeyedArchiveTests/Resources/FuzzRegressions/, and ../shared/fixtures/malformed
when present. Not part of .ci/run (it takes minutes); run it after changing a reader:

    swift build -c release --product keyed-archive && swift build -c release --product HardeningProbe
    python3 Tests/HostileMatrix/hostile-matrix.py [--build .build/release] [--only SUBSTRING]

Prints one line per failing run and a summary; exits 1 when a run breaks a bound.
"""
import argparse, os, resource, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEAK_KB = 160 * 1024
OUTPUT_BYTES = 100 * 1024 * 1024
SECONDS = 2.0
MAX_INPUT = 64 * 1024

# Commands that only read; the edit verbs run on a copy of the input.
COMMANDS = [
    ["-lint"], ["-p"], ["decode"], ["decode", "--json"], ["decode", "--raw"],
    ["decode", "--recover"], ["decode", "--expand"], ["decode", "--jsonl"],
    ["decode", "--jsonl", "--expand"], ["decode", "--jsonl", "--recover"],
    ["-convert", "xml1", "-o", "-"], ["-convert", "binary1", "-o", "-"],
    ["-convert", "json", "-o", "-"], ["-convert", "json", "-r", "-o", "-"],
    ["-convert", "swift", "-o", "-"], ["-convert", "objc", "-o", "-"],
    ["-extract", "$objects", "xml1", "-o", "-"], ["-extract", "$top.root", "raw"],
    ["-type", "$top"],
]
EDITS = [
    ["-insert", "added", "-string", "x"], ["-replace", "$top", "-integer", "1"],
    ["-remove", "$version"], ["-insert", "0", "-xml", "<array><array/></array>"],
]


def run(tool, args, path):
    """Runs the tool with its output counted, not kept; returns (status, output bytes,
    peak KB, seconds, last line of standard error)."""
    started = time.monotonic()
    process = subprocess.Popen([tool] + args + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    written = 0
    while True:
        chunk = process.stdout.read(1 << 20)
        if not chunk:
            break
        written += len(chunk)
    error = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - started
    last = error.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    return process.returncode, written, usage.ru_maxrss, elapsed, last[0][:160]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--only", default="")
    options = parser.parse_args()
    tool = os.path.join(options.build, "keyed-archive")
    probe = os.path.join(options.build, "HardeningProbe")
    for needed in (tool, probe):
        if not os.path.exists(needed):
            sys.exit(f"{needed} is missing: swift build -c release --product keyed-archive && swift build -c release --product HardeningProbe")
    work = tempfile.mkdtemp(prefix="hostile-matrix-")
    corpus = os.path.join(work, "corpus")
    subprocess.run([probe, "write-corpus", corpus], check=True, stdout=subprocess.DEVNULL)
    inputs = [os.path.join(corpus, name) for name in sorted(os.listdir(corpus))]
    regressions = os.path.join(ROOT, "Tests", "KeyedArchiveTests", "Resources", "FuzzRegressions")
    malformed = os.path.join(ROOT, "..", "shared", "fixtures", "malformed")
    for folder in (regressions, malformed):
        if os.path.isdir(folder):
            inputs += [os.path.join(folder, name) for name in sorted(os.listdir(folder))
                       if os.path.isfile(os.path.join(folder, name))]
    inputs = [path for path in inputs if options.only in os.path.basename(path)]
    runs = failures = 0
    worst = {"peak": (0, ""), "time": (0.0, ""), "output": (0, "")}
    for path in inputs:
        size = os.path.getsize(path)
        for args in COMMANDS + EDITS:
            target = path
            if args in EDITS:
                target = os.path.join(work, "edit-" + os.path.basename(path))
                shutil.copyfile(path, target)
            status, written, peak, elapsed, last = run(tool, args, target)
            runs += 1
            label = f"{os.path.basename(path)} ({size} B) {' '.join(args)}"
            for key, value in (("peak", peak), ("time", elapsed), ("output", written)):
                if value > worst[key][0]:
                    worst[key] = (value, label)
            problems = []
            if status < 0 or status >= 128:
                problems.append(f"signal/status {status}")
            if size <= MAX_INPUT:
                if peak > PEAK_KB:
                    problems.append(f"peak {peak // 1024} MB")
                if written > OUTPUT_BYTES:
                    problems.append(f"output {written >> 20} MB")
                if elapsed > SECONDS:
                    problems.append(f"{elapsed:.2f} s")
            if problems:
                failures += 1
                print(f"FAIL {label}: {', '.join(problems)} | {last}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{runs} runs over {len(inputs)} inputs, {failures} over a bound")
    print(f"worst peak {worst['peak'][0] // 1024} MB ({worst['peak'][1]}), "
          f"worst time {worst['time'][0]:.2f} s ({worst['time'][1]}), "
          f"most output {worst['output'][0] >> 20} MB ({worst['output'][1]})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
