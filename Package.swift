// swift-tools-version: 6.2
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// A dependency on a product of async-http-client or swift-nio that exists only under the AsyncHTTPClient trait.
func traitGuarded(_ product: String, in package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["AsyncHTTPClient"]))
}

func nioProducts(_ names: [String]) -> [Target.Dependency] {
    names.map { name in
        let package =
            switch name {
            case "NIOHTTP2": "swift-nio-http2"
            case "NIOSSL": "swift-nio-ssl"
            default: "swift-nio"
            }
        return traitGuarded(name, in: package)
    }
}

let asyncHTTPClientProducts: [Target.Dependency] =
    [traitGuarded("AsyncHTTPClient", in: "async-http-client")]
    + nioProducts(["NIOCore", "NIOHTTP1", "NIOPosix", "NIOFoundationCompat", "NIOSSL"])

/// A dependency on a product that exists only under `trait`: with the trait off, SwiftPM prunes its package.
func product(_ name: String, in package: String, under trait: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: [trait]))
}

let package = Package(
    name: "NetKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "NetCore", targets: ["NetCore"]),
        .library(name: "NetTransport", targets: ["NetTransport"]),
        .library(name: "NetAuth", targets: ["NetAuth"]),
        .library(name: "NetMultipart", targets: ["NetMultipart"]),
        .library(name: "NetStreaming", targets: ["NetStreaming"]),
        .library(name: "NetKit", targets: ["NetKit"]),
        .library(name: "NetKitTesting", targets: ["NetKitTesting"]),
        // Each empty unless its trait is enabled.
        .library(name: "NetAsyncHTTPClient", targets: ["NetAsyncHTTPClient"]),
        .library(name: "NetOpenAPI", targets: ["NetOpenAPI"]),
        .library(name: "NetLogging", targets: ["NetLogging"]),
        .library(name: "NetMetrics", targets: ["NetMetrics"]),
        .library(name: "NetTracing", targets: ["NetTracing"]),
        .executable(name: "netkit-demo", targets: ["netkit-demo"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "Builds NetAsyncHTTPClient's AsyncHTTPClientTransport on swift-server/async-http-client. "
                + "Off by default: without it no package is fetched."
        ),
        .trait(
            name: "OpenAPI",
            description: "Builds NetOpenAPI: a swift-openapi-runtime ClientTransport and ClientMiddleware on NetKit's "
                + "road. Off by default."
        ),
        .trait(
            name: "Logging",
            description: "Builds NetLogging: NetworkLogger writing to a swift-log Logger. Off by default."
        ),
        .trait(
            name: "Metrics",
            description: "Builds NetMetrics: per-request counters, timers and gauges on swift-metrics. Off by default."
        ),
        .trait(
            name: "Tracing",
            description: "Builds NetTracing: client spans and W3C trace context on swift-distributed-tracing. "
                + "Off by default."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // Used only by targets that ask for them under the AsyncHTTPClient trait: with the trait off, SwiftPM
        // prunes both from resolution, so nothing is fetched (README, "An AsyncHTTPClient transport").
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        // Only the HTTP/2-over-TLS test server of NetAsyncHTTPClientTests uses these two.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        // One package per bridge, each used only under its own trait.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
    ],
    targets: [
        // CNetKitZlib: RequestCompressionPlugin's gzip and deflate of request bodies (the system's zlib, no package).
        .target(
            name: "NetCore", dependencies: ["NetKitLock", "NetKitDigest", "CNetKitZlib"], swiftSettings: strictSwift),
        .target(name: "NetMultipart", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(name: "NetTransport", dependencies: ["NetCore", "NetKitLock"], swiftSettings: strictSwift),
        .target(name: "NetAuth", dependencies: ["NetCore", "NetKitLock"], swiftSettings: strictSwift),
        .target(
            name: "NetStreaming", dependencies: ["NetCore", "NetKitLock", "NetKitDigest", "CNetKitFileSync"],
            swiftSettings: strictSwift),
        .target(
            name: "NetKit",
            dependencies: ["NetCore", "NetTransport", "NetAuth", "NetMultipart", "NetStreaming", "NetKitLock"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetAsyncHTTPClient",
            dependencies: ["NetCore", "NetKitLock"] + asyncHTTPClientProducts
                + [.target(name: "CNetKitZlib", condition: .when(traits: ["AsyncHTTPClient"]))],
            swiftSettings: strictSwift
        ),
        // The system's zlib, a system library rather than a package (nothing is fetched): NetCore compresses request
        // bodies with it (RequestCompressionPlugin), and NetAsyncHTTPClient decodes the content codings that SwiftNIO's
        // decompressor leaves (stacked codings, x-gzip) under the AsyncHTTPClient trait.
        .systemLibrary(name: "CNetKitZlib", path: "Sources/CNetKitZlib"),
        .target(
            name: "NetOpenAPI",
            dependencies: [
                "NetCore", "NetKitLock",
                product("OpenAPIRuntime", in: "swift-openapi-runtime", under: "OpenAPI"),
                product("HTTPTypes", in: "swift-http-types", under: "OpenAPI"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetLogging",
            dependencies: ["NetCore", product("Logging", in: "swift-log", under: "Logging")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetMetrics",
            dependencies: ["NetCore", product("CoreMetrics", in: "swift-metrics", under: "Metrics")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetTracing",
            dependencies: ["NetCore", product("Tracing", in: "swift-distributed-tracing", under: "Tracing")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetKitTesting",
            dependencies: [
                "NetCore", "NetMultipart", "NetStreaming", "LoopbackServer", "NetKitLock", "NetKitDigest",
                "CNetKitZlib",
            ],
            swiftSettings: strictSwift),
        .target(
            name: "LoopbackServer", dependencies: ["NetKitLock", "NetKitDigest", "CNetKitSpawn"],
            swiftSettings: strictSwift),
        // `Lock`, the one lock of the package's shared state (a `Mutex`, or a pthread mutex the thread sanitizer can
        // see under `make tsan`): a module of its own because LoopbackServer shares it without depending on NetCore.
        // Not a product; `package` access only.
        .target(name: "NetKitLock", swiftSettings: strictSwift),
        // `SHA256`, shared the same way: the loopback server's body digests and the response cache's digests of
        // credentials and targets on disk. Not a product; `package` access only.
        .target(name: "NetKitDigest", dependencies: ["CNetKitSHA256"], swiftSettings: strictSwift),
        // The SHA-256 rounds in the processor's own instructions where it has them (x86-64's SHA extensions, chosen
        // at run time): C, because Swift has no intrinsics for them. Downloads check a file's digest as it arrives,
        // and the Swift rounds (about 250 MB/s) fell behind a loopback transfer.
        .target(name: "CNetKitSHA256"),
        // Linux's `sync_file_range`, which Swift's Glibc module does not declare: a download starts writing its file
        // to the disk as it goes, so the `fsync` before the move into place does not wait for the whole file.
        .target(name: "CNetKitFileSync"),
        // The `posix_spawn` file actions Swift's Glibc module does not declare (close every other descriptor, change
        // directory): the loopback harness starts openssl, nginx and curl with them, not with Foundation's `Process`.
        .target(name: "CNetKitSpawn"),
        .executableTarget(
            name: "netkit-demo", dependencies: ["NetKit", "LoopbackServer", "NetKitLock"], swiftSettings: strictSwift),
        // Programs CI builds, runs and reads with `readelf`: neither links FoundationNetworking (.ci/link-check).
        .executableTarget(
            name: "netkit-core-example",
            dependencies: ["NetCore", "NetAuth", "NetMultipart", "NetStreaming"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "netkit-server-example",
            dependencies: ["NetCore", "NetAuth", "NetMultipart", "NetStreaming", "LoopbackServer"]
                + [.target(name: "NetAsyncHTTPClient", condition: .when(traits: ["AsyncHTTPClient"]))],
            swiftSettings: strictSwift
        ),
        // The writer the disk cache's crash test kills at random points; a test helper, no product.
        .executableTarget(name: "netkit-cache-writer", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .executableTarget(
            name: "netkit-bench",
            dependencies: ["NetKit", "LoopbackServer", "NetKitLock", "NetKitDigest"]
                // `downloads` over AsyncHTTPClient too (NETKIT_BENCH_DOWNLOAD_TRANSPORT), when built with the trait.
                + [.target(name: "NetAsyncHTTPClient", condition: .when(traits: ["AsyncHTTPClient"]))],
            swiftSettings: strictSwift),

        .testTarget(name: "NetMultipartTests", dependencies: ["NetMultipart", "NetCore"], swiftSettings: strictSwift),
        // netkit-cache-writer: the process the disk cache's crash test kills (DiskCacheCrashTests).
        .testTarget(
            name: "NetCoreTests",
            dependencies: [
                "NetCore", "NetKitLock", "NetKitDigest", "netkit-cache-writer", "NetKitTesting", "LoopbackServer",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "NetTransportTests",
            dependencies: [
                "NetTransport", "NetCore", "NetMultipart", "NetKitTesting", "LoopbackServer", "NetKitLock",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetAsyncHTTPClientTests",
            dependencies: ["NetAsyncHTTPClient", "NetKitTesting", "LoopbackServer", "NetKitLock"]
                + asyncHTTPClientProducts
                + nioProducts(["NIOHTTP2"]),
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetKitTestingTests", dependencies: ["NetKitTesting", "NetCore", "NetTransport", "NetKitLock"],
            // HAR files the tests replay, read through #filePath.
            exclude: ["Fixtures"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "NetAuthTests", dependencies: ["NetAuth", "NetCore", "NetKitTesting", "NetKitLock"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "NetStreamingTests",
            dependencies: ["NetStreaming", "NetCore", "NetKitLock", "NetKitDigest", "CNetKitFileSync"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "NetKitTests",
            dependencies: ["NetKit", "NetKitTesting", "LoopbackServer", "NetKitLock", "NetKitDigest"],
            // The replay suite's HAR fixtures, read through #filePath.
            exclude: ["Replay/Fixtures"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetOpenAPITests",
            dependencies: [
                "NetOpenAPI", "NetCore", "NetAuth", "NetTransport", "NetKitTesting", "LoopbackServer", "NetKitLock",
                product("OpenAPIRuntime", in: "swift-openapi-runtime", under: "OpenAPI"),
                product("HTTPTypes", in: "swift-http-types", under: "OpenAPI"),
                .target(name: "NetAsyncHTTPClient", condition: .when(traits: ["AsyncHTTPClient"])),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetLoggingTests",
            dependencies: [
                "NetLogging", "NetCore", "NetKitTesting",
                product("Logging", in: "swift-log", under: "Logging"),
                product("InMemoryLogging", in: "swift-log", under: "Logging"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetMetricsTests",
            dependencies: [
                "NetMetrics", "NetCore", "NetKitTesting", "NetKitLock",
                product("CoreMetrics", in: "swift-metrics", under: "Metrics"),
                product("MetricsTestKit", in: "swift-metrics", under: "Metrics"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetTracingTests",
            dependencies: [
                "NetTracing", "NetCore", "NetKitTesting",
                product("Tracing", in: "swift-distributed-tracing", under: "Tracing"),
                product("InMemoryTracing", in: "swift-distributed-tracing", under: "Tracing"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "LoopbackServerTests", dependencies: ["LoopbackServer", "NetKitLock", "NetKitDigest"],
            swiftSettings: strictSwift),
    ]
)
