import HTTPTypes

/// The redirect listener's responder: every request gets 308 to the same
/// target over HTTPS (`https://<Host without port>:<TLS port><target>`, the
/// port left out when it is 443). 308 keeps the method and body.
struct HTTPSRedirect: RequestResponder {
    /// Route ID for metrics; the router's routes are numbered from 0.
    static let routeID = -2
    let httpsPort: Int

    var allowedMethods: [String] { ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] }

    func respond(to request: Request, sink: ResponseSink) {
        sink.setRoute("https-redirect", id: Self.routeID)
        guard let location = location(for: request.head) else {
            sink.respond(ProblemDetails.response(
                status: .badRequest, title: "Bad Request", detail: "A Host header is needed to redirect to HTTPS.", instance: nil))
            return
        }
        sink.respond(Response(
            status: .permanentRedirect,
            headerFields: [.location: location, .contentType: "text/plain; charset=utf-8"],
            body: Array("Moved to \(location)\n".utf8)))
    }

    func location(for head: HTTPRequest) -> String? {
        guard let host = Self.hostWithoutPort(head.authority ?? "") else { return nil }
        let target = head.path.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        return "https://\(host)\(httpsPort == 443 ? "" : ":\(httpsPort)")\(target)"
    }

    /// `example.com:8080` → `example.com`, `[::1]:8080` → `[::1]`; nil when
    /// empty or not a plausible host (it goes into the Location field).
    static func hostWithoutPort(_ authority: String) -> String? {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[...close]
        } else if let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        let allowed = host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
        return allowed && !host.isEmpty && host != "[]" ? String(host) : nil
    }
}
