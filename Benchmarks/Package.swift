// swift-tools-version: 6.0
// Benchmarks live in their own package so that release builds of them never slow the main build.
// Run them with `Scripts/bench` (release mode, side by side with the peers named in DESIGN.md).
import PackageDescription

let library: Target.Dependency = .product(name: "SharedWebCredentials", package: "swcred")

let package = Package(
    name: "swcred-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "swcred", path: ".."),
        // The same GRDB the library uses, for its raw SQLite C module: the floor under a lookup.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The floor under the service benchmark: the same HTTP server, with nothing behind it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .target(name: "BenchmarkSupport"),
        .executableTarget(name: "vault-bench", dependencies: [library, "BenchmarkSupport"]),
        .executableTarget(name: "request-bench", dependencies: [library, "BenchmarkSupport"]),
        .executableTarget(name: "request-loop", dependencies: [library]),
        .executableTarget(name: "password-bench", dependencies: [library, "BenchmarkSupport"]),
        .executableTarget(name: "passphrase-bench", dependencies: [library, "BenchmarkSupport"]),
        .executableTarget(name: "association-bench", dependencies: [library, "BenchmarkSupport"]),
        .executableTarget(name: "grants-bench", dependencies: [library, "BenchmarkSupport"]),
        .executableTarget(name: "foundation-startup"),
        .executableTarget(name: "service-bench", dependencies: [library, "BenchmarkSupport"]),
        // Times the built swcred binary (import and export), so it needs only the support code.
        .executableTarget(name: "transfer-bench", dependencies: ["BenchmarkSupport"]),
        .executableTarget(
            name: "service-floor", dependencies: [.product(name: "Hummingbird", package: "hummingbird")]),
        .executableTarget(
            name: "peers-bench",
            dependencies: [library, "BenchmarkSupport", .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
    ]
)
