#!/usr/bin/env bash
# Builds the fuzz targets and runs one of them for a given time.
#
#   FuzzTesting/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
#
# TARGET: FuzzBinary FuzzXML FuzzOpenStep FuzzUnarchiver FuzzRoundTrip FuzzStreamed FuzzCodable
# FuzzTypedStream FuzzIMessageBody FuzzSQLite.
# Environment: SANITIZE=address adds AddressSanitizer; JOBS=n runs n workers; NICE=19 lowers
# the priority (default); NO_BUILD=1 skips the build.
#
# The corpus (seeded on each run from the shared fixtures, Seeds/ and generated inputs)
# lives in FuzzTesting/corpus/TARGET, crash artefacts in FuzzTesting/artifacts/TARGET/,
# the log in FuzzTesting/logs/TARGET.log: all outside git. A finding makes the script exit
# non-zero; keep the input as a regression file under
# Tests/KeyedArchiveTests/Resources/FuzzRegressions/ once fixed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

target="${1:-}"
seconds="${2:-}"
if [[ -z "$target" || -z "$seconds" ]]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
shift 2

case "$target" in
    FuzzBinary) dicts=(binary) ;;
    FuzzXML) dicts=(xml) ;;
    FuzzOpenStep) dicts=(openstep) ;;
    FuzzUnarchiver) dicts=(archive binary xml) ;;
    FuzzRoundTrip) dicts=(binary xml) ;;
    FuzzStreamed) dicts=(binary xml openstep json) ;;
    FuzzCodable) dicts=(archive binary) ;;
    FuzzTypedStream) dicts=(typedstream) ;;
    FuzzIMessageBody) dicts=(typedstream) ;;
    FuzzSQLite) dicts=(sqlite) ;;
    *) echo "unknown target: $target" >&2; exit 2 ;;
esac

export SWIFT_BACKTRACE=enable=no
sanitizers=(--sanitize=fuzzer)
# Assertions on in the optimized build, for the library's modules too (-Xswiftc reaches
# every Swift module of the build, the root package's included): the fuzzers check the
# invariants that `assert` states (Documentation/Internals.md, "Unsafe code").
assertions=(-Xswiftc -assert-config -Xswiftc Debug)
build_dir=.build
if [[ "${SANITIZE:-}" == address ]]; then
    # SwiftPM passes two separate -sanitize= flags and the compiler keeps only the last
    # (no coverage instrumentation, so libFuzzer runs blind); the combined flag fixes it.
    sanitizers+=(--sanitize=address -Xswiftc -sanitize=fuzzer,address)
    build_dir=.build-asan
fi
if [[ -z "${NO_BUILD:-}" ]]; then
    swift build -c release "${sanitizers[@]}" "${assertions[@]}" --scratch-path "$build_dir" --product "$target"
fi
binary="$build_dir/release/$target"

corpus="corpus/$target"
artifacts="artifacts/$target"
mkdir -p "$corpus" "$artifacts" logs
# libFuzzer takes one dictionary: concatenate the formats this target reads.
dict="logs/$target.dict"
for name in "${dicts[@]}"; do cat "Dictionaries/$name.dict"; done >"$dict"
python3 make-seeds.py "$target" "$corpus"

nice -n "${NICE:-19}" "$binary" \
    -dict="$dict" \
    -max_total_time="$seconds" \
    -max_len=32768 \
    -timeout=20 \
    -rss_limit_mb=3072 \
    -print_final_stats=1 \
    -artifact_prefix="$artifacts/" \
    ${JOBS:+-jobs="$JOBS" -workers="$JOBS"} \
    "$@" \
    "$corpus" 2>&1 | tee "logs/$target.log" && status=0 || status=${PIPESTATUS[0]}
echo "corpus: $(ls "$corpus" | wc -l) files, $(du -sh "$corpus" | cut -f1)" | tee -a "logs/$target.log"
exit "$status"
