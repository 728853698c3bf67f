// swift-tools-version: 6.1
// NetKit's server-sent event parser against swift-openapi-runtime's, on the same bytes, in one run.
// A package of its own so that the root package keeps no dependencies.
//
//   swift build -c release --package-path Benchmarks/SSEComparison
//   Benchmarks/SSEComparison/.build/release/sse-comparison [megabytes] [rounds]
import PackageDescription

let package = Package(
    name: "SSEComparison",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "NetKit", path: "../.."),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    ],
    targets: [
        .executableTarget(
            name: "sse-comparison",
            dependencies: [
                .product(name: "NetCore", package: "NetKit"),
                .product(name: "NetStreaming", package: "NetKit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
