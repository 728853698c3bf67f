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
        // Empty unless the AsyncHTTPClient trait is enabled.
        .library(name: "NetAsyncHTTPClient", targets: ["NetAsyncHTTPClient"]),
        .executable(name: "netkit-demo", targets: ["netkit-demo"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "Builds NetAsyncHTTPClient's AsyncHTTPClientTransport on swift-server/async-http-client. "
                + "Off by default: without it no package is fetched."
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
    ],
    targets: [
        .target(name: "NetCore", swiftSettings: strictSwift),
        .target(name: "NetMultipart", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(name: "NetTransport", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(name: "NetAuth", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(name: "NetStreaming", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(
            name: "NetKit",
            dependencies: ["NetCore", "NetTransport", "NetAuth", "NetMultipart", "NetStreaming"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetAsyncHTTPClient",
            dependencies: ["NetCore"] + asyncHTTPClientProducts,
            swiftSettings: strictSwift
        ),
        .target(
            name: "NetKitTesting", dependencies: ["NetCore", "NetMultipart", "LoopbackServer"],
            swiftSettings: strictSwift),
        .target(name: "LoopbackServer", swiftSettings: strictSwift),
        .executableTarget(name: "netkit-demo", dependencies: ["NetKit", "LoopbackServer"], swiftSettings: strictSwift),
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
        .executableTarget(
            name: "netkit-bench", dependencies: ["NetKit", "LoopbackServer"], swiftSettings: strictSwift),

        .testTarget(name: "NetMultipartTests", dependencies: ["NetMultipart", "NetCore"], swiftSettings: strictSwift),
        .testTarget(name: "NetCoreTests", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .testTarget(
            name: "NetTransportTests",
            dependencies: ["NetTransport", "NetCore", "NetMultipart", "NetKitTesting", "LoopbackServer"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetAsyncHTTPClientTests",
            dependencies: ["NetAsyncHTTPClient", "NetKitTesting", "LoopbackServer"] + asyncHTTPClientProducts
                + nioProducts(["NIOHTTP2"]),
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NetKitTestingTests", dependencies: ["NetKitTesting", "NetCore", "NetTransport"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "NetAuthTests", dependencies: ["NetAuth", "NetCore", "NetKitTesting"], swiftSettings: strictSwift),
        .testTarget(name: "NetStreamingTests", dependencies: ["NetStreaming", "NetCore"], swiftSettings: strictSwift),
        .testTarget(
            name: "NetKitTests", dependencies: ["NetKit", "NetKitTesting", "LoopbackServer"], swiftSettings: strictSwift
        ),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer"], swiftSettings: strictSwift),
    ]
)
