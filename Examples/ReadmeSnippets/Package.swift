// swift-tools-version: 6.2
// The README's Swift snippets and those of each migration guide (Docs/Migration), each copied as it is into a file
// of its own by `.ci/readme-snippets`, then built and run: neither can drift from the API.
import PackageDescription

let package = Package(
    name: "ReadmeSnippets",
    platforms: [.macOS(.v15), .iOS(.v18)],
    // With every trait, so that the README's snippets of AsyncHTTPClientTransport and the bridges compile too.
    dependencies: [
        .package(
            name: "NetKit", path: "../..", traits: ["AsyncHTTPClient", "OpenAPI", "Logging", "Metrics", "Tracing"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
    ],
    targets: [
        .target(name: "Checks", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "readme-snippets",
            dependencies: [
                "Checks",
                .product(name: "NetKit", package: "NetKit"),
                .product(name: "NetKitTesting", package: "NetKit"),
                .product(name: "NetAsyncHTTPClient", package: "NetKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NetOpenAPI", package: "NetKit"),
                .product(name: "NetLogging", package: "NetKit"),
                .product(name: "NetMetrics", package: "NetKit"),
                .product(name: "NetTracing", package: "NetKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The README's server program: on NetCore, NetStreaming and NetAsyncHTTPClient alone, so that it links no
        // FoundationNetworking (`.ci/readme-snippets` runs `.ci/link-check` on it).
        .executableTarget(
            name: "readme-server",
            dependencies: [
                "Checks",
                .product(name: "NetCore", package: "NetKit"),
                .product(name: "NetStreaming", package: "NetKit"),
                .product(name: "NetAsyncHTTPClient", package: "NetKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
        + ["eknetwork", "smartnetwork", "microclient", "networkkit", "alamofire"].map { page in
            // One program per page: a page's snippets share a module, the pages do not.
            .executableTarget(
                name: "migration-\(page)",
                dependencies: [
                    "Checks",
                    .product(name: "NetKit", package: "NetKit"),
                    .product(name: "NetKitTesting", package: "NetKit"),
                ],
                swiftSettings: [.swiftLanguageMode(.v6)]
            )
        }
)
