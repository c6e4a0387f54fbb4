// swift-tools-version: 6.1
import PackageDescription

// Load-benchmark servers: Signalbox's HTTP module and a Hummingbird 2 peer
// serving the same endpoints, over HTTP or HTTPS. A separate package so the service never
// depends on Hummingbird. Run through `scripts/bench-http`.
let package = Package(
    name: "HTTPLoad",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The root package, whatever its checkout folder is called.
        .package(name: "Signalbox", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "bench-signalbox",
            dependencies: [
                .product(name: "HTTP", package: "Signalbox"),
                .product(name: "Rx", package: "Signalbox"),
            ]
        ),
        .executableTarget(
            name: "bench-hummingbird",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
            ]
        ),
    ]
)
