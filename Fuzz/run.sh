#!/usr/bin/env bash
# Builds the libFuzzer harnesses (-sanitize=fuzzer,address, NetKit's modules instrumented too), replays every input
# under Regressions/<harness>/ (any crash fails), then fuzzes each harness for SECONDS (default 30) from its seed
# corpus Corpus/<harness>/. New inputs go to .build/corpus/<harness>/, crashes to .build/crashes/<harness>/: a crash
# fails the run and prints the file to copy into Regressions/<harness>/ once fixed.
#
#   Fuzz/run.sh [SECONDS] [HARNESS...]      make fuzz (30 s each), .ci/fuzz-short (10 s each)
set -euo pipefail
cd "$(dirname "$0")"

seconds="${1:-30}"
shift || true
harnesses=("$@")
if [ "${#harnesses[@]}" -eq 0 ]; then
    harnesses=(fuzz-line-splitter fuzz-ndjson fuzz-sse-parser fuzz-multipart fuzz-request-url fuzz-header-fields
        fuzz-cookies fuzz-cache-headers fuzz-cache-entry fuzz-link-header)
fi

echo "== building the harnesses (-sanitize=fuzzer,address)"
swift build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -warnings-as-errors 2>&1 \
    | grep -v -e "ld.gold: warning: Cannot export local symbol" || true
bin="$(swift build --show-bin-path)"

failed=0
for name in "${harnesses[@]}"; do
    if [ ! -x "$bin/$name" ]; then
        echo "FAILED: $bin/$name was not built" >&2
        exit 1
    fi
    regressions=(Regressions/"$name"/*)
    if [ -e "${regressions[0]}" ]; then
        echo "== $name: replaying ${#regressions[@]} regression inputs"
        if ! "$bin/$name" -runs=1 "${regressions[@]}" > ".build/$name-regressions.log" 2>&1; then
            echo "FAILED: $name crashes on a regression input:" >&2
            tail -n 40 ".build/$name-regressions.log" >&2
            failed=1
            continue
        fi
    fi
    mkdir -p ".build/corpus/$name" ".build/crashes/$name"
    echo "== $name: fuzzing for ${seconds}s"
    if ! "$bin/$name" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix=".build/crashes/$name/" -print_final_stats=1 \
        ".build/corpus/$name" "Corpus/$name" > ".build/$name.log" 2>&1; then
        echo "FAILED: $name found a crash (input in Fuzz/.build/crashes/$name/):" >&2
        grep -v -e '^#[0-9]' ".build/$name.log" | tail -n 40 >&2
        failed=1
        continue
    fi
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' ".build/$name.log" | tr '\n' ' '
    echo
done
exit "$failed"
