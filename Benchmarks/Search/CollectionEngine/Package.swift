// swift-tools-version: 6.1
import PackageDescription

// Figures of the collections engine on generated documents shaped like file paths.
// Run: cd Benchmarks/Search/CollectionEngine && swift build -c release && .build/release/CollectionEngineBenchmark [documents]
// ContentsQueries: the queries of Benchmarks/Collections/keystroke-vs-peers on the Contents documents,
// the engine alone: .build/release/ContentsQueries [DIR] [LIMIT] [ROUNDS] [SAVED]
let package = Package(
    name: "CollectionEngineBenchmark",
    dependencies: [
        .package(name: "Signalbox", path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "CollectionEngineBenchmark",
            dependencies: [.product(name: "Search", package: "Signalbox")]
        ),
        .executableTarget(
            name: "ContentsQueries",
            dependencies: [.product(name: "Search", package: "Signalbox"), .product(name: "Base", package: "Signalbox")]
        ),
    ]
)
