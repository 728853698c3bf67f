// swift-tools-version: 6.2
// The README's Swift snippets, each copied as it is into a file of its own by `.ci/readme-snippets`, then built
// and run: the README cannot drift from the API.
import PackageDescription

let package = Package(
    name: "ReadmeSnippets",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "NetKit", path: "../..")],
    targets: [
        .executableTarget(
            name: "readme-snippets",
            dependencies: [
                .product(name: "NetKit", package: "NetKit"),
                .product(name: "NetKitTesting", package: "NetKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
