// Hummingbird 2 peer for scripts/bench-http: the same endpoints as
// bench-signalbox. Usage: bench-hummingbird PORT [CERT-FILE KEY-FILE]
// With a certificate and key it serves HTTPS (HummingbirdTLS, swift-nio-ssl).
import Hummingbird
import HummingbirdTLS

struct Message: ResponseEncodable {
    let message: String
}

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8081 : 8081
let router = Router()
router.get("/healthz") { _, _ in "ok" }
router.get("/json") { _, _ in Message(message: "Hello, World!") }
let configuration = ApplicationConfiguration(
    address: .hostname("127.0.0.1", port: port), serverName: "bench-hummingbird")

if arguments.count > 3 {
    let certificates = try NIOSSLCertificate.fromPEMFile(arguments[2])
    let key = try NIOSSLPrivateKey(file: arguments[3], format: .pem)
    var tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
    tls.applicationProtocols = ["http/1.1"]
    let app = Application(router: router, server: try .tls(.http1(), tlsConfiguration: tls), configuration: configuration)
    try await app.runService()
} else {
    let app = Application(router: router, configuration: configuration)
    try await app.runService()
}
