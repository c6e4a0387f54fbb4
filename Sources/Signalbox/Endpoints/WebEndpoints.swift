import Base
import Foundation
import HTTP
import HTTPTypes
import Rx

/// `GET /` (the search page) and `GET /assets/app.js`, `/assets/refine.js`, `/assets/style.css`, `/assets/icon.svg`:
/// package resources under `Resources/web`, served as they are.
///
/// Each file carries a strong `ETag` (304 on `If-None-Match`) with
/// `Cache-Control: no-cache`, so a browser revalidates and never runs a stale
/// script; and a Content-Security-Policy that allows only this origin.
struct WebEndpoints {
    /// One file of the page.
    struct Asset: Sendable {
        let body: [UInt8]
        let contentType: String
        let etag: String
    }

    /// Scripts, styles, fetches and event streams from this origin only; no inline code, no frames.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Route path → file name under `Resources/web` and its content type.
    static let routes: [(path: String, file: String, contentType: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/assets/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/assets/refine.js", "refine.js", "text/javascript; charset=utf-8"),
        ("/assets/style.css", "style.css", "text/css; charset=utf-8"),
        ("/assets/icon.svg", "icon.svg", "image/svg+xml"),
    ]

    func register(on router: some RouteBuilder) {
        for route in Self.routes {
            let asset = Self.load(route.file, contentType: route.contentType)
            router.get(route.path) { request -> Single<Response> in
                guard let asset else { throw HTTPError(.internalServerError, detail: "\(route.file) is missing from the package.") }
                return .just(Self.response(for: asset, to: request))
            }
        }
    }

    static func response(for asset: Asset, to request: Request) -> Response {
        var fields: HTTPFields = [
            .eTag: asset.etag, .cacheControl: "no-cache",
            .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff",
        ]
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        if request.isNotModified(etag: asset.etag) {
            return Response(status: .notModified, headerFields: fields)
        }
        fields[.contentType] = asset.contentType
        return Response(status: .ok, headerFields: fields, body: asset.body)
    }

    static func load(_ file: String, contentType: String) -> Asset? {
        let name = (file as NSString).deletingPathExtension, ext = (file as NSString).pathExtension
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Resources/web"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        var hasher = FNV1a()
        hasher.combine(Array(data))
        return Asset(body: Array(data), contentType: contentType, etag: "\"\(String(hasher.value, radix: 16))\"")
    }
}
