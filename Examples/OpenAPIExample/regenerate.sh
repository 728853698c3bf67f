#!/usr/bin/env bash
# Regenerates Sources/TodosAPI/Generated/ from openapi.yaml with swift-openapi-generator's command-line tool, built
# from the Generator package beside this script (in its own Generator/.build). Run it after changing openapi.yaml or
# openapi-generator-config.yaml, and commit the result: building the example uses the committed files and never
# builds the generator.
set -euo pipefail
cd "$(dirname "$0")"

output=Sources/TodosAPI/Generated
rm -rf "$output"
mkdir -p "$output"
swift run --package-path Generator -c release swift-openapi-generator generate openapi.yaml \
    --config openapi-generator-config.yaml \
    --output-directory "$output"

# The generator writes `package import X` (we asked for package access) and silences "package import of X was not
# used" only with `@diagnose`, which needs Swift 6.4: on Swift 6.3 every namespace file that leaves an import unused
# warns, and the example builds with warnings as errors. In the Swift 6 language mode a plain `import` is public and
# never reported as unused, so the access level comes off the imports; nothing else is touched.
sed -i.orig -E 's/^((@_spi\([A-Za-z]+\) )?)package import /\1import /' "$output"/*.swift
rm -f "$output"/*.orig
