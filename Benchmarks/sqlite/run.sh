#!/usr/bin/env bash
# The SQLite benchmark of issue 29: one `keyed-archive decode --jsonl` process sweeping a
# folder of generated databases (live rows), against one Python process doing sqlite3 +
# plistlib.loads + json.dumps over the same BLOBs (reference.py); both timed whole,
# start-up included, output to /dev/null; then the tool with --recover. Three sizes (rows
# per database ×1, ×2, ×4) show whether the time is linear in the size.
#
#   Benchmarks/sqlite/run.sh [DATABASES] [ROWS] [REPEATS]   # defaults: 8 2000 3
#
# Builds the tool in release (`swift build -c release --product keyed-archive`) unless
# NO_BUILD=1. The databases go to ${BENCH_DIR:-/tmp/keyed-archive-sqlite-bench} (about
# 1.4 MB per 1,000 rows). Each figure is the fastest of REPEATS runs (the machine is
# shared: the fastest run is the one least disturbed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
databases=${1:-8}
rows=${2:-2000}
repeats=${3:-3}
work=${BENCH_DIR:-/tmp/keyed-archive-sqlite-bench}

if [[ -z "${NO_BUILD:-}" ]]; then
    (cd "$root" && swift build -c release --product keyed-archive >/dev/null)
fi
tool="$(cd "$root" && swift build -c release --show-bin-path)/keyed-archive"

# fastest COMMAND...: the fastest wall-clock time of $repeats runs, in seconds.
fastest() {
    local best="" start end elapsed
    for _ in $(seq "$repeats"); do
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || true
        end=$(date +%s.%N)
        elapsed=$(echo "$end - $start" | bc -l)
        if [[ -z $best ]] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
    done
    printf '%.3f' "$best"
}

printf '%-10s %8s %8s %8s %10s %10s %8s %8s\n' \
    "rows/db" "MB" "BLOBs" "python" "tool" "--recover" "ratio" "rec/live"
for factor in 1 2 4; do
    folder="$work/x$factor"
    per=$((rows * factor))
    if [[ ! -f "$folder/.made-$databases-$per" ]]; then
        rm -rf "$folder"
        python3 "$here/make-databases.py" "$folder" "$databases" "$per"
        touch "$folder/.made-$databases-$per"
    fi
    megabytes=$(du -sm "$folder" | cut -f1)
    blobs=$("$tool" decode --jsonl "$folder" | wc -l)
    reference_lines=$(python3 "$here/reference.py" "$folder" 2>/dev/null | wc -l)
    if [[ $blobs -ne $reference_lines ]]; then
        echo "run.sh: the tool wrote $blobs lines, the reference $reference_lines" >&2
        exit 1
    fi
    python=$(fastest python3 "$here/reference.py" "$folder")
    live=$(fastest "$tool" decode --jsonl "$folder")
    recover=$(fastest "$tool" decode --jsonl --recover "$folder")
    printf '%-10s %8s %8s %8s %10s %10s %8s %8s\n' "$per" "$megabytes" "$blobs" "$python" "$live" \
        "$recover" "$(printf '%.1f×' "$(echo "$python / $live" | bc -l)")" \
        "$(printf '%.2f×' "$(echo "$recover / $live" | bc -l)")"
done
