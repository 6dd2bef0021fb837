#!/usr/bin/env bash
# Instructions our side of each benchmark executes (callgrind), for before/after comparisons
# that this noisy 2-core machine cannot give in time. Small size, 3 runs of our side per row
# (the input's preparation and Foundation's side are not counted).
#
#   Benchmarks/count-instructions.sh [BIN] [FILTER] > counts.tsv
#
# BIN defaults to .build/release/benchmarks (build it with
# `swift build -c release --product benchmarks`). Output: identifier <TAB> instructions.
# Compare two runs with `join counts-before.tsv counts-after.tsv`.
set -euo pipefail
bin=${1:-.build/release/benchmarks}
filter=${2:-}
export SWIFT_DETERMINISTIC_HASHING=1
# One identifier a line (identifiers hold spaces).
"$bin" --list-identifiers | while IFS= read -r id; do
    [[ -z $filter || $id == *"$filter"* ]] || continue
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*countedOursRuns*' \
        "$bin" --count-ours "$id" 3 </dev/null >/dev/null 2>&1 || { echo "$id failed" >&2; rm -f "$out"; continue; }
    printf '%s\t%s\n' "$id" "$(sed -n 's/^summary: //p' "$out")"
    rm -f "$out"
done
