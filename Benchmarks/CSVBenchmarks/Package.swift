// swift-tools-version: 6.1
import PackageDescription

// Our streaming CSV reader (Search's CSVRecordReader) against the machine's CSV libraries on the
// same generated file. Run: cd Benchmarks/CSVBenchmarks && ./run.sh [LINES]
let package = Package(
    name: "CSVBenchmarks",
    dependencies: [
        .package(name: "Signalbox", path: "../.."),
        .package(url: "https://github.com/yaslab/CSV.swift", exact: "2.5.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", exact: "0.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "CSVBenchmarks",
            dependencies: [
                .product(name: "Search", package: "Signalbox"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ]
        )
    ]
)
