// swift-tools-version: 6.2
// Small programs that show, on Linux, what FoundationNetworking (URLSession on libcurl) does and does not do, and
// what NetKit does about it: `swift run --package-path Examples/LinuxFacts linux-facts <fact>` (Docs/Linux.md).
// NetKit without traits: nothing is fetched. Each fact starts its own small server on 127.0.0.1.
import PackageDescription

let package = Package(
    name: "LinuxFacts",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "NetKit", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "linux-facts",
            dependencies: [.product(name: "NetKit", package: "NetKit")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
