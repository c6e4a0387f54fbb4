// swift-tools-version: 6.1
import PackageDescription

// Layers, lowest first: Base ← Rx ← HTTP, Search ← Signalbox ← signalbox (executable).
// HTTP knows nothing of search; Search knows nothing of HTTP.
let package = Package(
    name: "Signalbox",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Base", targets: ["Base"]),
        .library(name: "Rx", targets: ["Rx"]),
        .library(name: "RxTest", targets: ["RxTest"]),
        .library(name: "RxBlocking", targets: ["RxBlocking"]),
        .library(name: "RxCompat", targets: ["RxCompat"]),
        .library(name: "HTTP", targets: ["HTTP"]),
        .library(name: "HTTPTesting", targets: ["HTTPTesting"]),
        .library(name: "Search", targets: ["Search"]),
        .library(name: "Signalbox", targets: ["Signalbox"]),
        .executable(name: "signalbox", targets: ["SignalboxCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // HMAC-SHA256 for stored keys and tenant tokens (postgres-nio already builds it).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // `swift package generate-documentation` (DocC); CI fails on a DocC warning.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The lock, the monotonic clock, the stable hash, the JSON form and the own threads every layer shares. No dependencies.
        .target(name: "Base"),
        // Reactive core and traits (RxSwift 6 names).
        .target(name: "Rx", dependencies: ["Base"]),
        .target(name: "RxTest", dependencies: ["Rx"]),
        .target(name: "RxBlocking", dependencies: ["Rx"]),
        // Pre-RxSwift-6 spellings (`observeOn`, `shareReplay`, `bindTo`, ...), each a
        // forward to the RxSwift 6 operator; opt-in, so `Rx` stays RxSwift 6's API.
        .target(name: "RxCompat", dependencies: ["Rx"]),

        // HTTP/1.1 server over POSIX sockets and Dispatch.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // Linux's epoll for the server's poller, and accept4 for its listener.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // The system's OpenSSL 3 for HTTPS; only HTTP imports it.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "HTTP",
            dependencies: [
                "Base", "Rx", "CEpoll", "CZlib", "COpenSSL",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // A test client of a router: in process (no sockets), or live (a server on port 0,
        // HTTP/1.1 over real sockets, HTTPS through COpenSSL), with the same calls for both.
        .target(
            name: "HTTPTesting",
            dependencies: [
                "HTTP", "Rx", "COpenSSL",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The search index. No HTTP, no reactive core.
        .target(name: "Search", dependencies: ["Base", "CZlib"], resources: [.copy("Resources")]),
        // Random collection documents for the property tests of Search and Signalbox.
        .target(name: "SearchTesting", dependencies: ["Base"]),

        // The service: endpoints, lookups, change feed, store, metrics.
        .target(
            name: "Signalbox",
            dependencies: [
                "Base", "Rx", "HTTP", "Search",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, for the import's row writes (`SQLiteUpsertStatement`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "SignalboxCLI",
            dependencies: [
                "Signalbox", "Search",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "BaseTests", dependencies: ["Base"]),
        .testTarget(name: "RxTests", dependencies: ["Base", "Rx", "RxTest"]),
        .testTarget(name: "RxBlockingTests", dependencies: ["Rx", "RxBlocking"]),
        .testTarget(name: "SeedExamplesTests", dependencies: ["Rx", "RxCompat", "RxTest"]),
        .testTarget(
            name: "HTTPTests",
            dependencies: [
                "Base", "HTTP", "HTTPTesting", "Rx", "RxTest", "COpenSSL", "CZlib",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SignalboxCLITests", dependencies: ["SignalboxCLI"]),
        .testTarget(name: "SearchTests", dependencies: ["Base", "Search", "SearchTesting"], resources: [.copy("Resources")]),
        .testTarget(
            name: "SignalboxTests",
            dependencies: [
                "Base", "Signalbox", "Rx", "RxTest", "HTTP", "HTTPTesting", "Search", "SearchTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
