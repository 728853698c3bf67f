# Shortcuts for the commands the README names.
.PHONY: test-under-load tsan build test demo bench bench-transports test-ahc compat readme ci clean lint format api api-baseline fuzz docs

build:
	swift build -Xswiftc -warnings-as-errors

test:
	swift test --disable-xctest

demo:
	swift run netkit-demo

bench:
	swift run -c release netkit-bench all

bench-transports:
	bash Benchmarks/Transports/run-benchmarks.sh

test-ahc:
	swift test --traits AsyncHTTPClient --disable-xctest

# The default suite under the thread sanitizer, in .build-tsan, after two canaries prove it can fail (.ci/thread-sanitizer).
tsan:
	bash .ci/thread-sanitizer

# The built suite five times in a row (RUNS=n for another count) while two busy loops keep both cores at 100%.
test-under-load:
	bash .ci/under-load

# Every trait at once: the AsyncHTTPClient transport, NetOpenAPI and the three observability bridges (the load
# tests in a run of their own, then the rest).
test-traits:
	bash .ci/test-traits

# A generated OpenAPI client against a Hummingbird server (Examples/OpenAPIExample).
openapi-example:
	swift test --package-path Examples/OpenAPIExample --disable-xctest

compat:
	swift run --package-path Examples/EKNetworkCompatibility eknetwork-compatibility

docs:
	bash .ci/docs

readme:
	bash .ci/readme-snippets

ci:
	bash .ci/run

# swift format with .swift-format: `lint` fails on any finding, `format` rewrites the files in place.
lint:
	bash .ci/lint

format:
	bash .ci/lint --format

# The public API against the baseline of the last released version (api/<version>); `api-baseline` records the
# baseline of NetKitVersion.current when a version is cut.
api:
	swift build
	bash .ci/api-check

api-baseline:
	swift build
	bash .ci/api-check --record

# libFuzzer harnesses of the Fuzz package, each for FUZZ_SECONDS (default 30) after replaying its regressions.
fuzz:
	bash Fuzz/run.sh $${FUZZ_SECONDS:-30}

clean:
	rm -rf .build .build-docs Fuzz/.build Examples/EKNetworkCompatibility/.build Examples/ReadmeSnippets/.build Benchmarks/Transports/.build Conformance/CacheTests/.build
