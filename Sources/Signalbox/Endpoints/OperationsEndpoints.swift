import Base
import Foundation
import HTTP
import HTTPTypes
import Rx

/// `GET /healthz`, `/readyz`, `/metrics` and `/openapi.yaml`.
struct OperationsEndpoints {
    /// Whether the service takes traffic: data loaded, store open, not draining.
    let isReady: @Sendable () -> Bool
    /// Where the replica stands (epoch, applied and head sequence numbers), for `/readyz`'s body.
    let status: @Sendable () -> ReplicaStatus

    func register(on router: some RouteBuilder) {
        // Built once: it answers probes and load balancers many times a second.
        let healthy = Self.json(.ok, #"{"status":"ok"}"#)
        router.get("/healthz") { _ -> Single<Response> in
            .just(healthy)
        }
        // Probes ask far more often than the replica's status changes: the answer is encoded
        // again only when one of its values has (JSONEncoder per request cost more than the rest).
        let readiness = LastResponse<ReplicaStatus>()
        router.get("/readyz") { _ -> Single<Response> in
            var replica = status()
            let ready = isReady()
            replica.status = ready ? "ready" : "unavailable"
            return .just(readiness.response(for: replica) { replica in
                let body = (try? JSONCoding.encoder.encode(replica)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                return Self.json(ready ? .ok : .serviceUnavailable, body)
            })
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

/// `/readyz`'s body: whether the replica takes traffic, and where it stands in the store's sequence.
struct ReplicaStatus: Encodable, Equatable, Sendable {
    var status = ""
    /// The store's life; `/events` clients send it back as `Signalbox-Epoch`.
    let epoch: String
    /// The latest change this replica serves.
    let applied: Int64
    /// The latest change this replica knows was committed.
    let head: Int64
}
