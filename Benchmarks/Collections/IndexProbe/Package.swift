// swift-tools-version: 6.1
import PackageDescription

// The index side of the collections' import and start paths, without the server: decode the first N
// Contents documents, build one index of them (what a start does), and apply them in batches of 2,000
// and of 16,000 (what an import does), printing wall and CPU time; and time id look-ups in such an index.
// Run: cd Benchmarks/Collections/IndexProbe && swift run -c release IndexProbe 200000 [build] [import2000] [import16000] [lookup]
let package = Package(
    name: "IndexProbe",
    dependencies: [
        .package(name: "Signalbox", path: "../../..")
    ],
    targets: [
        .executableTarget(name: "IndexProbe", dependencies: [.product(name: "Search", package: "Signalbox")])
    ]
)
