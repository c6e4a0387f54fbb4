// swift-tools-version: 6.1
import PackageDescription

// A plain benchmark harness for the Rx module. Run from this folder:
//   swift run -c release
let package = Package(
    name: "RxBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Signalbox", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RxBenchmarks",
            dependencies: [.product(name: "Rx", package: "Signalbox")]
        ),
    ]
)
