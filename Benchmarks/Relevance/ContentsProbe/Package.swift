// swift-tools-version: 6.1
import PackageDescription

// Signalbox's side of the collection relevance set (Benchmarks/Relevance/compare-contents): loads the
// Contents documents into one collection index (what a start does), runs each query of a file and
// writes its first hits. Run: cd Benchmarks/Relevance/ContentsProbe && swift build -c release
let package = Package(
    name: "ContentsProbe",
    dependencies: [
        .package(name: "Signalbox", path: "../../..")
    ],
    targets: [
        .executableTarget(name: "ContentsProbe", dependencies: [.product(name: "Search", package: "Signalbox")])
    ]
)
