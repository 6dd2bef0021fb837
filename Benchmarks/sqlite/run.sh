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
# 0.7 MB per 1,000 rows). Each figure is the fastest of REPEATS runs (the machine is
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

# fastest COMMAND...: "WALL CPU", the fastest wall-clock time and the smallest CPU time
# (user + system) of $repeats runs of the whole process, in seconds.
fastest() {
    local wall="" cpu="" timing
    timing=$(mktemp)
    for _ in $(seq "$repeats"); do
        /usr/bin/time -o "$timing" -f "%e %U %S" "$@" >/dev/null 2>&1 || true
        read -r e u s <"$timing"
        local c
        c=$(echo "$u + $s" | bc -l)
        if [[ -z $wall ]] || (( $(echo "$e < $wall" | bc -l) )); then wall=$e; fi
        if [[ -z $cpu ]] || (( $(echo "$c < $cpu" | bc -l) )); then cpu=$c; fi
    done
    rm -f "$timing"
    printf '%.2f %.2f' "$wall" "$cpu"
}

ratio() { printf '%.1f×' "$(echo "$1 / $2" | bc -l)"; }

echo "seconds, whole processes: wall clock (fastest of $repeats) and CPU time, user + system (smallest)"
printf '%-8s %5s %7s | %13s | %13s | %13s | %11s | %11s\n' \
    "rows/db" "MB" "BLOBs" "python w/cpu" "tool w/cpu" "--recover" "ratio w/cpu" "rec/live"
for factor in 1 2 4; do
    folder="$work/x$factor"
    per=$((rows * factor))
    if [[ ! -f "$work/.made-x$factor-$databases-$per" ]]; then
        rm -rf "$folder"
        python3 "$here/make-databases.py" "$folder" "$databases" "$per"
        touch "$work/.made-x$factor-$databases-$per"
    fi
    megabytes=$(du -sm "$folder" | cut -f1)
    blobs=$("$tool" decode --jsonl "$folder" | wc -l)
    reference_lines=$(python3 "$here/reference.py" "$folder" 2>/dev/null | wc -l)
    if [[ $blobs -ne $reference_lines ]]; then
        echo "run.sh: the tool wrote $blobs lines, the reference $reference_lines" >&2
        exit 1
    fi
    read -r python_wall python_cpu <<<"$(fastest python3 "$here/reference.py" "$folder")"
    read -r live_wall live_cpu <<<"$(fastest "$tool" decode --jsonl "$folder")"
    read -r recover_wall recover_cpu <<<"$(fastest "$tool" decode --jsonl --recover "$folder")"
    printf '%-8s %5s %7s | %6s %6s | %6s %6s | %6s %6s | %5s %5s | %5s %5s\n' "$per" "$megabytes" "$blobs" \
        "$python_wall" "$python_cpu" "$live_wall" "$live_cpu" "$recover_wall" "$recover_cpu" \
        "$(ratio "$python_wall" "$live_wall")" "$(ratio "$python_cpu" "$live_cpu")" \
        "$(ratio "$recover_wall" "$live_wall")" "$(ratio "$recover_cpu" "$live_cpu")"
done
