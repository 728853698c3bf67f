#!/usr/bin/env bash
# Builds cache-tests-client and runs the http-tests cache-tests suite against NetKit's ResponseCache (README.md).
#
#   bash Conformance/CacheTests/run.sh SUITE_DIR [urlsession|ahc|both] [--json FILE] [--id TEST_ID] [--verbose]
#
# SUITE_DIR: a checkout of https://github.com/http-tests/cache-tests (nothing to install: Node alone runs it).
# Without a transport, both run, one after the other. CACHE_TESTS_CONFIGURATION=debug builds in debug instead of
# release. With both transports, --json FILE writes FILE-urlsession.json and FILE-ahc.json.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 1 ]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
suite="$(cd "$1" && pwd)"
shift
transports=(urlsession ahc)
if [ $# -gt 0 ] && [[ "$1" != --* ]]; then
    case "$1" in
        urlsession | ahc) transports=("$1") ;;
        both) ;;
        *) echo "unknown transport $1 (urlsession, ahc or both)" >&2; exit 2 ;;
    esac
    shift
fi
options=("$@")

configuration="${CACHE_TESTS_CONFIGURATION:-release}"
swift build -c "$configuration" --package-path "$here" --product cache-tests-client
client="$(swift build -c "$configuration" --package-path "$here" --show-bin-path)/cache-tests-client"

status=0
for transport in "${transports[@]}"; do
    run_options=()
    for ((i = 0; i < ${#options[@]}; i++)); do
        if [ "${options[$i]}" = --json ] && [ ${#transports[@]} -gt 1 ]; then
            run_options+=(--json "${options[$((i + 1))]%.json}-$transport.json")
            i=$((i + 1))
        else
            run_options+=("${options[$i]}")
        fi
    done
    node "$here/run.mjs" "$suite" "$client" "$transport" ${run_options[@]+"${run_options[@]}"} || status=$?
    echo
done
exit "$status"
