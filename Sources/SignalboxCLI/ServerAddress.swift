import Foundation

/// The server `--url` names: `http://HOST[:PORT][/PREFIX]`.
struct ServerAddress: Sendable {
    let host: String
    let port: Int
    /// A path the server is mounted under (behind a proxy), without a trailing slash; usually "".
    let basePath: String

    init(parsing text: String) throws(ImportFailure) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .usage("--url must look like http://HOST:PORT, got \(text)")
        }
        // The client is our own plain socket one (no libcurl in the runtime image): HTTP only.
        guard scheme == "http" else {
            throw .usage("--url: only http:// is supported, got \(scheme)://")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = url.port ?? 80
        basePath = url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path
    }

    /// `Host` header value.
    var authority: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(shown):\(port)"
    }
}
