#!/usr/bin/env bash
# The peers benchmark: KeyedArchive against libplist (C), the Rust `plist` crate, Python's
# plistlib and openstep_plist (Cython), on the same generated inputs, each timed in its own
# process with in-process clocks. The inputs come in several shapes (flat records, deep mixed
# nesting, string-heavy, number-heavy, data-heavy, non-ASCII keys and values, archives; see
# make_inputs.py), three seeds each, so that no row can be tuned to one input. Prints a
# Markdown table of the *minimum* ratio over shapes per operation and input (ratio = fastest
# peer's median time ÷ ours, above 1 when we are faster), the table per shape, and
# whole-process timings of the `keyed-archive` tool against `plistutil` and plistlib.
#
#   Benchmarks/peers/run.sh [PASSES] [ROUNDS]     (defaults: 1 pass of 7 rounds)
#
# Environment: SHAPES (comma-separated, default all), SEEDS (default 3), MEGABYTES (the large
# document's size, default 5), PEERS_INPUTS (a folder to keep the generated inputs in and
# reuse on the next run; default a temporary one), PEERS_SAMPLES (a file to copy the raw
# samples into, for `table.py SAMPLES` later).
#
# Each pass runs, for every shape and seed, every harness once, in a rotating order, each
# doing one warm-up round and ROUNDS timed rounds in which its operations alternate, so a
# noisy neighbour slows every side alike. Installs the peers from Debian's packages when they are missing (needs root
# and apt), builds the Rust harness offline against Debian's crate registry
# (/usr/share/cargo/registry) in a temporary folder, and leaves nothing in the repository.
# Not part of .ci/run, since it installs packages.
set -euo pipefail
passes=${1:-1}
rounds=${2:-7}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

packages=(libplist-dev libplist-utils librust-plist-dev python3-openstep-plist hyperfine pkg-config time)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
command -v cc >/dev/null || missing+=(gcc)
command -v cargo >/dev/null || missing+=(cargo)
if ((${#missing[@]})); then
    echo "installing ${missing[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's python3, where python3-openstep-plist is installed.
python=/usr/bin/python3

in=${PEERS_INPUTS:-$work/in}
if [[ ! -f $in/lint.bplist ]]; then
    echo "generating inputs" >&2
    "$python" "$here/make_inputs.py" "$in" "${SHAPES:-}" "${SEEDS:-3}" "${MEGABYTES:-5}"
fi
shapes=()
for folder in "$in"/*/; do
    shape=$(basename "$folder")
    [[ -z ${SHAPES:-} || ,$SHAPES, == *,"${shape%-*}",* ]] && shapes+=("$shape")
done

echo "building the harnesses" >&2
cc -O2 -o "$work/harness-c" "$here/harness.c" $(pkg-config --cflags --libs libplist-2.0)
mkdir -p "$work/cargo-home"
cat >"$work/cargo-home/config.toml" <<'TOML'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
CARGO_HOME="$work/cargo-home" CARGO_TARGET_DIR="$work/rust-target" \
    cargo build --quiet --release --manifest-path "$here/rust/Cargo.toml"
rm -f "$here/rust/Cargo.lock"
(cd "$root" && swift build -c release --product benchmarks >&2 && swift build -c release --product keyed-archive >&2)
bin=$(cd "$root" && swift build -c release --show-bin-path)

harnesses=(
    "$bin/benchmarks --peers"
    "$work/harness-c"
    "$work/rust-target/release/plist-peer-harness"
    "$python $here/harness.py"
)
: >"$work/samples.tsv"
for ((pass = 0; pass < passes; pass++)); do
    for ((shape = 0; shape < ${#shapes[@]}; shape++)); do
        echo "pass $((pass + 1)) of $passes: ${shapes[$shape]}" >&2
        for ((index = 0; index < ${#harnesses[@]}; index++)); do
            harness=${harnesses[$(((index + pass + shape) % ${#harnesses[@]}))]}
            $harness "$in/${shapes[$shape]}" "$rounds" | sed "s/^/${shapes[$shape]}\t/" >>"$work/samples.tsv"
        done
    done
done
[[ -n ${PEERS_SAMPLES:-} ]] && cp "$work/samples.tsv" "$PEERS_SAMPLES"

echo "whole-process timings" >&2
process() {  # operation input peer command...
    local operation=$1 input=$2 peer=$3
    shift 3
    hyperfine --style none --warmup 3 --min-runs 20 --export-json "$work/h.json" -- "$*" >/dev/null 2>&1
    local seconds
    seconds=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$work/h.json")
    /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1
    local kilobytes
    kilobytes=$(tail -1 "$work/rss")
    printf '%s\t%s\t%s\t%s\t%s\n' "$operation" "$input" "$peer" "$seconds" "$kilobytes" >>"$work/process.tsv"
}
: >"$work/process.tsv"
process "start, check a file" "1 KB binary plist" "keyed-archive -lint" "$bin/keyed-archive" -lint "$in/lint.bplist"
process "start, check a file" "1 KB binary plist" "plistutil (to /dev/null)" plistutil -i "$in/lint.bplist" -o /dev/null
process "convert to XML" "3.2 MB binary archive" "keyed-archive -convert xml1" \
    "$bin/keyed-archive" -convert xml1 -o "$work/out.xml" "$in/big-archive.bplist"
process "convert to XML" "3.2 MB binary archive" "plistutil" plistutil -i "$in/big-archive.bplist" -o "$work/out.xml"
process "convert to XML" "3.2 MB binary archive" "python3 plistlib" \
    "$python" "$here/plistlib_convert.py" "$in/big-archive.bplist" "$work/out.xml"

echo
echo "Peers benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m); ${#shapes[@]} shape-seeds, $passes passes × $rounds rounds"
echo
"$python" "$here/table.py" "$work/samples.tsv" "$work/process.tsv"
