// swift-tools-version: 6.2
// libFuzzer harnesses for NetKit's parsers and builders, one executable each; NetKit is used by path, through its
// public API only. Built and run by run.sh (`make fuzz`, and `.ci/fuzz-short` in CI) with
// `-sanitize=fuzzer,address`, which instruments NetKit's modules too. See README.md.
import PackageDescription

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// A harness: an executable whose `<module>_main` hands its `LLVMFuzzerTestOneInput` to libFuzzer's driver.
func harness(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", "CLibFuzzer"] + products.map { .product(name: $0, package: "NetKit") },
        swiftSettings: swift6
    )
}

let package = Package(
    name: "NetKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "NetKit", path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", swiftSettings: swift6),
        harness("fuzz-line-splitter", ["NetStreaming"]),
        harness("fuzz-ndjson", ["NetStreaming", "NetCore"]),
        harness("fuzz-sse-parser", ["NetStreaming"]),
        harness("fuzz-multipart", ["NetMultipart"]),
        harness("fuzz-request-url", ["NetCore"]),
        harness("fuzz-header-fields", ["NetCore"]),
        harness("fuzz-cookies", ["NetCore"]),
    ]
)
