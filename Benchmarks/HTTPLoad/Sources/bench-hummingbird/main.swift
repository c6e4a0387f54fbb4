// Hummingbird 2 peer for scripts/bench-http: the same endpoints as
// bench-signalbox. Usage: bench-hummingbird PORT
import Hummingbird

struct Message: ResponseEncodable {
    let message: String
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8081 : 8081
let router = Router()
router.get("/healthz") { _, _ in "ok" }
router.get("/json") { _, _ in Message(message: "Hello, World!") }
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "bench-hummingbird")
)
try await app.runService()
