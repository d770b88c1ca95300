// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swcred",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SharedWebCredentials", targets: ["SharedWebCredentials"]),
        .library(name: "SharedWebCredentialsCore", targets: ["SharedWebCredentialsCore"]),
        .library(name: "SharedWebCredentialsClient", targets: ["SharedWebCredentialsClient"]),
        .library(name: "SharedWebCredentialsTransfer", targets: ["SharedWebCredentialsTransfer"]),
        .library(name: "SwcredBrowser", targets: ["SwcredBrowser"]),
        .executable(name: "swcred", targets: ["swcred"]),
        .executable(name: "swcred-serve", targets: ["swcred-serve"]),
    ],
    traits: [
        .trait(
            name: "GuardedSecrets",
            description:
                "Every secret in its own sodium_malloc allocation between guard pages, so an out-of-bounds access in the unsafe code traps. For test runs (Scripts/test --guarded): slower, and each secret costs a few pages."
        )
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The PostgreSQL storage engine (Store/PostgreSQL), chosen by `--store postgresql://…`.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // NIOHTTPTypes: the HTTP parts in Hummingbird's channel pipeline (BodyDeadlineHandler).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The vault service only (swcred-serve); swcred itself does not link these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The API's generated server and client (Scripts/openapi generates them from API/openapi.yaml).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // Import and export (SharedWebCredentialsTransfer): a CSV reader that streams from a file,
        // and zip archives for 1Password's 1PUX.
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // Tests only: property tests (issue 51) that search a rule's input space with generated
        // cases and print the seed of a failing one; no other dependency.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // zxcvbn-c, the passphrase strength estimator KeePassXC uses; Debian ships no pkg-config file.
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        // sqlite3_db_config is variadic, so Swift cannot call it: this sets SQLITE_DBCONFIG_DEFENSIVE.
        .target(name: "CSQLiteHardening", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The parsers and value types, with no dependency beyond Foundation: cheap to build with
        // fuzzing instrumentation (Fuzz/) and usable by tools that only check AASA files or rules.
        .target(name: "SharedWebCredentialsCore"),
        // The data the library embeds, generated from Resources/ and Migrations/ by
        // Scripts/embed-resources and Scripts/embed-migrations (CI checks they match): Apple's
        // password rules and shared-credential groups, the EFF word list, the schema. Its own
        // module, so that a change to code never recompiles it.
        .target(name: "SharedWebCredentialsData"),
        .target(
            name: "SharedWebCredentials",
            dependencies: [
                "SharedWebCredentialsCore",
                "SharedWebCredentialsData",
                "CSodium",
                "CZxcvbn",
                "CSQLiteHardening",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Import from other password managers' files and export to open formats.
        .target(
            name: "SharedWebCredentialsTransfer",
            dependencies: [
                "SharedWebCredentials",
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // What every door of swcred shares below the vault (issue 49): the checks of a Unix socket,
        // its directories and its peer (SO_PEERCRED) that the service's clients and both ends of the
        // browser socket make, a constant-time compare, a locked buffer and libsodium's start-up.
        // Only libsodium and Glibc, so that SwcredBrowser, which may depend on neither the vault
        // library nor the client, shares them.
        .target(name: "SwcredPlatform", dependencies: ["CSodium"]),
        // The KeePassXC-Browser protocol (issue 44): native-messaging framing, the crypto_box
        // session, the messages and the engine over a vault-side protocol, and RFC 6238 codes.
        // Nothing of the vault: the service's browser listener and `swcred browser host` plug the
        // vault in. swift-crypto for HMAC-SHA1, which libsodium lacks (TOTP's default).
        .target(
            name: "SwcredBrowser",
            dependencies: [
                "CSodium", "SwcredPlatform", "SharedWebCredentialsCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // prctl for the process hardening (no core dumps), which Swift cannot call (variadic), and
        // the socket's POSIX ACL for --allow-uid (lsetxattr, which Glibc's Swift module lacks).
        .target(name: "CProcessHardening"),
        // Hands the runtime the conformance records swcred's link deferred (lazy-conformances.ld),
        // once the command line is parsed.
        .target(name: "CConformanceRegistration", exclude: ["lazy-conformances.ld"]),
        // What swcred and swcred-serve each do to their own process first: not dumpable, no core,
        // no backtracer, secrets scrubbed from the environment.
        .target(name: "SwcredHardening", dependencies: ["CProcessHardening"]),
        // The API's request and response types, generated from API/openapi.yaml (Scripts/openapi);
        // the service and the client share them.
        .target(
            name: "SwcredAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]
        ),
        // The client of the vault service: the facade's method shapes over HTTP, without the server.
        .target(
            name: "SharedWebCredentialsClient",
            dependencies: [
                "SharedWebCredentials",
                "SwcredAPI",
                "SwcredPlatform",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "swcred",
            dependencies: [
                "SharedWebCredentials",
                "SwcredHardening",
                "SharedWebCredentialsClient",
                "SharedWebCredentialsTransfer",
                "SwcredBrowser",
                "CConformanceRegistration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [
                .unsafeFlags([
                    // The static Swift runtime's link arguments export every symbol of the
                    // package's own objects (47,000, 4 MB of .dynsym and .dynstr), and the
                    // runtime's start-up calls dladdr, which searches that table linearly: 1.6 M
                    // instructions of every call, 7% of `swcred --version` (Benchmarks/README.md,
                    // Start-up). Nothing looks them up: crash backtraces read the file's own
                    // symbol table. A no-op for dynamic (debug) builds.
                    "-Xlinker", "--no-export-dynamic",
                    // The conformance records of Foundation and the third-party packages in a
                    // section the runtime does not scan while the command line is parsed: three
                    // quarters of the records, which every cast during parsing scanned
                    // (Sources/CConformanceRegistration). lld, for the script's INSERT.
                    "-use-ld=lld", "-Xlinker", "-T",
                    "-Xlinker", Context.packageDirectory + "/Sources/CConformanceRegistration/lazy-conformances.ld",
                    // The loader's 155,000 relative relocations as a bitmap (RELR, glibc 2.36)
                    // instead of a 3.7 MB table it reads at every start: 0.6 M instructions and
                    // 60 to 80 page faults of each call (Benchmarks/README.md, Start-up).
                    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                ])
            ]
        ),
        // The vault service (`swcred serve` runs it): Hummingbird on a Unix socket.
        .target(
            name: "SwcredService",
            dependencies: [
                "SharedWebCredentials",
                "SwcredHardening",
                "CProcessHardening",
                "SwcredAPI",
                "SwcredBrowser",
                "SwcredPlatform",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "swcred-serve",
            dependencies: [
                "SwcredService",
                "SharedWebCredentials",
                "SwcredHardening",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "CSpawnSupport", path: "Tests/CSpawnSupport"),
        .target(
            name: "TestSupport",
            dependencies: [
                "SharedWebCredentials",
                "CSpawnSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport"
        ),
        .executableTarget(
            name: "VaultTestClient",
            dependencies: ["SharedWebCredentials"],
            path: "Tests/VaultTestClient"
        ),
        .testTarget(
            name: "SharedWebCredentialsTests",
            dependencies: [
                "SharedWebCredentials", "SharedWebCredentialsData", "SharedWebCredentialsTransfer", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // CSodium too: the tests play the extension with libsodium's own crypto_box_easy, not the
        // session's precomputed-key calls.
        .testTarget(
            name: "SwcredBrowserTests",
            dependencies: [
                "SwcredBrowser", "CSodium", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "swcredTests",
            // ZIPFoundation to write the hostile 1PUX files the import tests feed the binary; the
            // client library and the service for the checks of a socket's peer that no process run
            // can reach (a peer whose credentials cannot be read); swcred-serve for how its parsed
            // options become ServiceOptions.
            dependencies: [
                "TestSupport", "SharedWebCredentialsClient", "SwcredService", "SwcredBrowser", "swcred-serve",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
    ]
)
