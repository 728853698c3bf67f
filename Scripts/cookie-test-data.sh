#!/usr/bin/env bash
# Lays out the cookie tests' data from outside the repository (see Tests/NetCoreTests/CookieTestData.swift and
# NetKitTesting's HTTPStateCookieCase): the Public Suffix List and its test vectors from a checkout of
# publicsuffix/list, and the parser cases of the RFC 6265 test suite from a checkout of abarth/http-state.
# Tests read the folder from $NETKIT_COOKIE_TEST_DATA, else from shared/cookie-test-data beside the package, and
# skip what is missing.
#
#   Scripts/cookie-test-data.sh PUBLICSUFFIX_LIST_CHECKOUT HTTP_STATE_CHECKOUT DESTINATION
set -euo pipefail
if [ "$#" -ne 3 ]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
list="$1"
state="$2"
destination="$3"
mkdir -p "$destination/http-state/parser"
cp "$list/public_suffix_list.dat" "$list/tests/test_psl.txt" "$destination/"
cp "$state"/tests/data/parser/*-test "$state"/tests/data/parser/*-expected "$destination/http-state/parser/"
echo "== $destination: $(find "$destination/http-state/parser" -name '*-test' | wc -l) http-state cases"
