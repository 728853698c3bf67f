// swift-tools-version: 6.2
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

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
        .executable(name: "netkit-demo", targets: ["netkit-demo"]),
    ],
    targets: [
        .target(name: "NetMultipart", swiftSettings: strictSwift),
        .target(name: "NetCore", dependencies: ["NetMultipart"], swiftSettings: strictSwift),
        .target(name: "NetTransport", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(name: "NetAuth", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(name: "NetStreaming", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .target(
            name: "NetKit",
            dependencies: ["NetCore", "NetTransport", "NetAuth", "NetMultipart", "NetStreaming"],
            swiftSettings: strictSwift
        ),
        .target(name: "NetKitTesting", dependencies: ["NetCore", "NetMultipart", "LoopbackServer"], swiftSettings: strictSwift),
        .target(name: "LoopbackServer", swiftSettings: strictSwift),
        .executableTarget(name: "netkit-demo", dependencies: ["NetKit", "LoopbackServer"], swiftSettings: strictSwift),
        .executableTarget(name: "netkit-bench", dependencies: ["NetKit", "LoopbackServer"], swiftSettings: strictSwift),

        .testTarget(name: "NetMultipartTests", dependencies: ["NetMultipart"], swiftSettings: strictSwift),
        .testTarget(name: "NetCoreTests", dependencies: ["NetCore"], swiftSettings: strictSwift),
        .testTarget(
            name: "NetTransportTests",
            dependencies: ["NetTransport", "NetKitTesting", "LoopbackServer"],
            swiftSettings: strictSwift
        ),
        .testTarget(name: "NetKitTestingTests", dependencies: ["NetKitTesting", "NetTransport", "LoopbackServer"], swiftSettings: strictSwift),
        .testTarget(name: "NetAuthTests", dependencies: ["NetAuth", "NetTransport", "NetKitTesting"], swiftSettings: strictSwift),
        .testTarget(name: "NetStreamingTests", dependencies: ["NetStreaming", "NetCore"], swiftSettings: strictSwift),
        .testTarget(name: "NetKitTests", dependencies: ["NetKit", "NetKitTesting", "LoopbackServer"], swiftSettings: strictSwift),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer"], swiftSettings: strictSwift),
    ]
)
