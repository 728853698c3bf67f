// swift-tools-version: 6.2
// NetKit over URLSession and over AsyncHTTPClient against the raw engines, in one run, on loopback.
// A package of its own, so that the root package keeps no dependencies: it enables NetKit's AsyncHTTPClient trait.
//
//   bash Benchmarks/Transports/run-benchmarks.sh            # starts nginx on 127.0.0.1, runs everything
//   swift build -c release --package-path Benchmarks/Transports
//   Benchmarks/Transports/.build/release/transport-bench http://127.0.0.1:PORT [small|concurrent|download|all] [rounds]
//   Benchmarks/Transports/.build/release/transport-bench http://127.0.0.1:PORT memory <transport> [requests]
//   NETKIT_BENCH_BOUNDS_TRANSPORTS=ahc NETKIT_BENCH_BOUNDS_CHILD=Benchmarks/Transports/.build/release/transport-bench \
//       .build/release/netkit-bench bounds 1      # the bounds cases over AsyncHTTPClient (Docs/Performance.md)
import PackageDescription

let package = Package(
    name: "TransportBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "NetKit", path: "../..", traits: ["AsyncHTTPClient"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "transport-bench",
            dependencies: [
                .product(name: "NetKit", package: "NetKit"),
                .product(name: "NetAsyncHTTPClient", package: "NetKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
