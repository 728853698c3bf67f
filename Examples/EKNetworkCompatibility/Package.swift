// swift-tools-version: 6.1
// A consumer of NetKit, as an EKNetwork user's app would be: it depends on NetKit by path and runs the
// EKNetwork reference's examples, copied as they are. Swift 5 mode, like the code they were written for.
import PackageDescription

let package = Package(
    name: "EKNetworkCompatibility",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "NetKit", path: "../..")],
    targets: [
        .executableTarget(
            name: "eknetwork-compatibility",
            dependencies: [.product(name: "NetKit", package: "NetKit")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        )
    ]
)
