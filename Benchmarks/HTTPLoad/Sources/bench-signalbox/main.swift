// Signalbox peer for scripts/bench-http: the same endpoints as
// bench-hummingbird. Usage: bench-signalbox PORT [CERT-FILE KEY-FILE]
// With a certificate and key it serves HTTPS (the HTTP module's TLS).
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import Logging
import Rx

struct Message: Encodable, ResponseEncodable {
    let message: String
}

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let tls = arguments.count > 3 ? TLSConfiguration(certificateChainFile: arguments[2], privateKeyFile: arguments[3]) : nil
var logger = Logger(label: "bench-signalbox")
logger.logLevel = .warning

let router = Router()
router.get("/healthz") { _ in "ok" }
// The JSON endpoint goes through a trait, as the service's endpoints do.
router.get("/json") { _ -> Single<Message> in .just(Message(message: "Hello, World!")) }

let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: port, tls: tls), router: router, logger: logger)
do {
    try server.start()
} catch {
    print("bench-signalbox: \(error)")
    exit(1)
}
// Park the main thread (dispatchMain trips valgrind).
while true { pause() }
