// swift-tools-version: 6.0
// Generates mutants from swcred's security-critical sources with swift-syntax, for
// `Scripts/mutants --generate`. A separate package so that the main build never pays for
// swift-syntax; Scripts/mutants builds it into its own .build here (git-ignored).
import PackageDescription

let package = Package(
    name: "swcred-mutant-generator",
    platforms: [.macOS(.v14)],
    dependencies: [.package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1")],
    targets: [
        .executableTarget(
            name: "MutantGenerator",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftOperators", package: "swift-syntax"),
            ]
        )
    ]
)
