// swift-tools-version: 6.2
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "OpenAPIExample",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "NetKit", path: "../..", traits: ["OpenAPI"]),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        // Types.swift, Client.swift and Server.swift as swift-openapi-generator wrote them from openapi.yaml
        // (regenerate.sh); committed, so building this package never builds the generator.
        .target(
            name: "TodosAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSwift
        ),
        // The generated APIProtocol implemented on Hummingbird 2.
        .target(
            name: "TodosServer",
            dependencies: [
                "TodosAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSwift
        ),
        // The generated Client over NetKit's NetOpenAPI transport, against a TodosServer on 127.0.0.1.
        .testTarget(
            name: "TodosTests",
            dependencies: [
                "TodosAPI", "TodosServer",
                .product(name: "NetOpenAPI", package: "NetKit"),
                .product(name: "NetCore", package: "NetKit"),
                .product(name: "NetTransport", package: "NetKit"),
                .product(name: "NetAuth", package: "NetKit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSwift
        ),
    ]
)
