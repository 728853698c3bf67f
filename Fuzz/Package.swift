// swift-tools-version: 6.2
// libFuzzer harnesses for NetKit's parsers and builders, one executable each; NetKit is used by path, through its
// public API only (but the harnesses of parsers and builders that are not API: see netKitPackageName). Built and run by run.sh (`make fuzz`, and `.ci/fuzz-short` in CI) with
// `-sanitize=fuzzer,address`, which instruments NetKit's modules too. See README.md.
import Foundation
import PackageDescription

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// The package name NetKit's modules are compiled with here, as SwiftPM makes it for a package used by path: the
/// name of its folder (the one holding this one), lowercased, as a C identifier (`wt-cache` → `wt_cache`). A
/// harness compiled with the same `-package-name` reaches NetKit's `package` declarations, which are not API:
/// `fuzz-cache-headers` needs the cache's readers of `Cache-Control`, `Vary` and HTTP dates, which NetKit does not
/// make public. Were SwiftPM to name it otherwise, that harness would fail to compile, not fuzz something else.
let netKitPackageName: String = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .lastPathComponent.lowercased()
    let name = String(folder.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    return name.first?.isNumber == true ? "_" + name : name
}()

/// A harness: an executable whose `<module>_main` hands its `LLVMFuzzerTestOneInput` to libFuzzer's driver;
/// `reachesPackage`: compiled as part of NetKit's package, for its `package` declarations.
func harness(_ name: String, _ products: [String], reachesPackage: Bool = false) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", "CLibFuzzer"] + products.map { .product(name: $0, package: "NetKit") },
        // Without package access SwiftPM passes no package name of its own (this package's), which would win.
        packageAccess: !reachesPackage,
        swiftSettings: swift6 + (reachesPackage ? [.unsafeFlags(["-package-name", netKitPackageName])] : [])
    )
}

let package = Package(
    name: "NetKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "NetKit", path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", swiftSettings: swift6),
        harness("fuzz-line-splitter", ["NetStreaming"], reachesPackage: true),
        harness("fuzz-ndjson", ["NetStreaming", "NetCore"], reachesPackage: true),
        harness("fuzz-sse-parser", ["NetStreaming"], reachesPackage: true),
        harness("fuzz-multipart", ["NetMultipart"]),
        harness("fuzz-request-url", ["NetCore"], reachesPackage: true),
        harness("fuzz-header-fields", ["NetCore"]),
        harness("fuzz-cookies", ["NetCore"]),
        harness("fuzz-link-header", ["NetCore"]),
        harness("fuzz-cache-headers", ["NetCore"], reachesPackage: true),
        harness("fuzz-cache-entry", ["NetCore"]),
    ]
)
