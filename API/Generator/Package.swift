// swift-tools-version: 6.1
// Builds swift-openapi-generator for Scripts/openapi, which generates the service's server stubs,
// its client and their shared types from API/openapi.yaml. Kept out of the main package so that
// an ordinary build does not compile the generator.
import PackageDescription

let package = Package(
    name: "swcred-openapi-generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ],
    targets: []
)
