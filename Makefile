# Shortcuts for the commands the README names.
.PHONY: build test demo bench bench-transports test-ahc compat readme ci clean

build:
	swift build -Xswiftc -warnings-as-errors

test:
	swift test

demo:
	swift run netkit-demo

bench:
	swift run -c release netkit-bench all

bench-transports:
	bash Benchmarks/Transports/run-benchmarks.sh

test-ahc:
	swift test --traits AsyncHTTPClient

compat:
	swift run --package-path Examples/EKNetworkCompatibility eknetwork-compatibility

readme:
	bash .ci/readme-snippets

ci:
	bash .ci/run

clean:
	rm -rf .build Examples/EKNetworkCompatibility/.build Examples/ReadmeSnippets/.build Benchmarks/Transports/.build
