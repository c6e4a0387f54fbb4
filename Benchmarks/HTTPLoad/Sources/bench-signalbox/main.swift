// Signalbox peer for scripts/bench-http: the same endpoints as
// bench-hummingbird. Usage: bench-signalbox PORT
import Dispatch
import HTTP
import Logging

struct Message: Encodable, ResponseEncodable {
    let message: String
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8080 : 8080
var logger = Logger(label: "bench-signalbox")
logger.logLevel = .warning

let router = Router()
router.get("/healthz") { _ in "ok" }
router.get("/json") { _ in Message(message: "Hello, World!") }

let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: port), router: router, logger: logger)
try server.start()
dispatchMain()
