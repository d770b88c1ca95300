// swift-tools-version: 6.0
// Coverage-guided fuzz targets (libFuzzer) for swcred's parsers. A separate package so that
// `-sanitize=fuzzer` never touches the main build; run one with `Scripts/fuzz TARGET SECONDS`.
import PackageDescription

let fuzzTargets = ["FuzzAASAParser", "FuzzPasswordRules", "FuzzDomainEntry", "FuzzEntitlementsPlist"]

let package = Package(
    name: "swcred-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "swcred", path: "..")],
    targets: fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [.product(name: "SharedWebCredentialsCore", package: "swcred")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
