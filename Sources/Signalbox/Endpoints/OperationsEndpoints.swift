import Foundation
import HTTP
import HTTPTypes
import Rx

/// `GET /healthz`, `/readyz`, `/metrics` and `/openapi.yaml`.
struct OperationsEndpoints {
    /// Whether the service takes traffic: data loaded, store open, not draining.
    let isReady: @Sendable () -> Bool

    func register(on router: Router) {
        // Built once: these answer probes and load balancers many times a second.
        let healthy = Self.json(.ok, #"{"status":"ok"}"#)
        let ready = Self.json(.ok, #"{"status":"ready"}"#)
        let unavailable = Self.json(.serviceUnavailable, #"{"status":"unavailable"}"#)
        router.get("/healthz") { _ -> Single<Response> in
            .just(healthy)
        }
        router.get("/readyz") { _ -> Single<Response> in
            .just(isReady() ? ready : unavailable)
        }
        router.get("/metrics") { _ -> Single<Response> in
            .just(Response(
                status: .ok, headerFields: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: PrometheusExporter.render()))
        }
        let openAPI = Self.openAPIDocument
        router.get("/openapi.yaml") { _ -> Single<Response> in
            .just(Response(status: .ok, headerFields: [.contentType: "application/yaml"], body: openAPI))
        }
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headerFields: [.contentType: "application/json"], body: Array(body.utf8))
    }

    /// The OpenAPI description shipped as a resource.
    static let openAPIDocument: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url)
        else { return Array("openapi: 3.1.0\n".utf8) }
        return Array(data)
    }()
}
