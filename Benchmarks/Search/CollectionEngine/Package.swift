// swift-tools-version: 6.1
import PackageDescription

// Figures of the collections engine on generated documents shaped like file paths.
// Run: cd Benchmarks/Search/CollectionEngine && swift build -c release && .build/release/CollectionEngineBenchmark [documents]
let package = Package(
    name: "CollectionEngineBenchmark",
    dependencies: [
        .package(name: "Signalbox", path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "CollectionEngineBenchmark",
            dependencies: [.product(name: "Search", package: "Signalbox")]
        )
    ]
)
