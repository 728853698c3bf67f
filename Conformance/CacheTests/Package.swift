// swift-tools-version: 6.2
// The http-tests cache-tests suite (the suite behind cache-tests.fyi) against NetKit's private HTTP cache, over
// URLSession and over AsyncHTTPClient. A package of its own, so that the root package keeps no dependencies: it
// enables NetKit's AsyncHTTPClient trait. See README.md.
//
//   bash Conformance/CacheTests/run.sh PATH/TO/cache-tests [urlsession|ahc]
import PackageDescription

let package = Package(
    name: "CacheTests",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "NetKit", path: "../..", traits: ["AsyncHTTPClient"])
    ],
    targets: [
        .executableTarget(
            name: "cache-tests-client",
            dependencies: [
                .product(name: "NetKit", package: "NetKit"),
                .product(name: "NetAsyncHTTPClient", package: "NetKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
