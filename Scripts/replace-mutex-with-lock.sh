#!/usr/bin/env bash
# Moves the root package's code from `Synchronization.Mutex` to NetKit's own `Lock` (Sources/NetKitLock/Lock.swift),
# which the thread sanitizer can see (`make tsan`). Mechanical and re-runnable: in every Swift file under Sources/ and
# Tests/ that imports Synchronization and names `Mutex`, the word `Mutex` becomes `Lock` and the import becomes
# `import NetKitLock` (kept beside it when the file still uses `Atomic`). Files already moved are left as they are.
# Examples/, Benchmarks/ and Fuzz/ are packages of their own that cannot reach a `package` type: not touched, nor
# Sources/netkit-bench/BoundsChild, which Benchmarks/Transports compiles too. Then it
# names every target whose files import NetKitLock but whose Package.swift entry does not depend on it (add it by hand).
set -euo pipefail
cd "$(dirname "$0")/.."

changed=0
while IFS= read -r -d '' file; do
    grep -q '^import Synchronization$' "$file" || continue
    grep -qw 'Mutex' "$file" || continue
    sed -i -E 's/\bMutex\b/Lock/g' "$file"
    if grep -qw 'Atomic' "$file"; then
        grep -q '^import NetKitLock$' "$file" || sed -i 's/^import Synchronization$/import NetKitLock\nimport Synchronization/' "$file"
    else
        sed -i 's/^import Synchronization$/import NetKitLock/' "$file"
    fi
    changed=$((changed + 1))
done < <(find Sources Tests -name '*.swift' -not -path 'Sources/NetKitLock/*' -not -path 'Sources/netkit-bench/BoundsChild/*' -print0)
echo "== moved $changed files from Mutex to Lock"

missing=0
for dir in $(grep -rl '^import NetKitLock$' Sources Tests | cut -d/ -f1-2 | sort -u); do
    target=${dir#*/}
    # The target's entry in Package.swift, from its name to the next target.
    entry=$(awk -v name="\"$target\"" '/^    targets: \[/ { targets = 1 } targets && index($0, "name: " name) { found = 1 } found { print } found && /\),?$/ { exit }' Package.swift)
    if ! grep -q '"NetKitLock"' <<< "$entry"; then
        echo "Package.swift: target $target imports NetKitLock but does not depend on it" >&2
        missing=1
    fi
done
exit $missing
