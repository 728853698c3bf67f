// swift-tools-version: 6.2
// Only for regenerate.sh: builds swift-openapi-generator's command-line tool. CI never builds this package; it
// builds the generated code committed under ../Sources.
import PackageDescription

let package = Package(
    name: "Generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3")
    ]
)
