import Foundation
import HTTP
import HTTPTypes
import Rx

/// `POST /keys`, `GET /keys`, `GET /keys/{id}`, `DELETE /keys/{id}`: stored keys, for an admin
/// key or a key with `keys.manage`. No answer but `POST`'s holds a secret.
struct KeyEndpoints {
    let keys: KeyService
    let access: Access

    func register(on router: some RouteBuilder) {
        let managed = router.checking(access.requiring(.keysManage))
        managed.post("/keys") { request -> Single<Response> in
            let body = request.body
            return Self.write {
                let (key, secret) = try await keys.create(json: body)
                var json = Self.object(key)
                json["key"] = secret
                var response = Self.json(.created, json)
                response.headerFields[.location] = "/keys/\(key.id)"
                return response
            }
        }

        managed.get("/keys") { _ -> Single<Response> in
            .just(Self.json(.ok, ["keys": keys.registry.all.map(Self.object)]))
        }

        managed.get("/keys/:id") { request -> Single<Response> in
            let id = request.parameters["id"] ?? ""
            guard let key = keys.registry.key(id: id) else { throw HTTPError(.notFound, detail: "No key has the id \(id.prefix(64)).") }
            return .just(Self.json(.ok, Self.object(key)))
        }

        managed.delete("/keys/:id") { request -> Single<Response> in
            let id = request.parameters["id"] ?? ""
            return Self.write {
                try await keys.delete(id: id)
                return Response(status: .noContent)
            }
        }
    }

    /// The problem a client gets for `error`.
    private static func problem(_ error: any Error) -> any Error {
        guard let error = error as? KeyError else { return StoreProblem.httpError(for: error) }
        switch error {
        case .noMasterSecret:
            return HTTPError(
                .conflict,
                detail: "Stored keys need a master secret: set keys.masterSecret (SIGNALBOX_KEYS_MASTER_SECRET) or keys.masterSecretFile.")
        case .tooManyKeys(let limit):
            return HTTPError(.conflict, detail: "There are already \(limit) keys; delete some first.")
        case .noSuchKey(let id):
            return HTTPError(.notFound, detail: "No key has the id \(id.prefix(64)).")
        case .invalid(let detail):
            return HTTPError(.badRequest, detail: detail)
        }
    }

    /// A key as `GET /keys` shows it.
    private static func object(_ key: StoredKey) -> [String: Any] {
        var object = (try? JSONSerialization.jsonObject(with: Data(key.json())) as? [String: Any]) ?? [:]
        if object["expiresAt"] == nil { object["expiresAt"] = NSNull() }
        return object
    }

    private static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Response(status: status, headerFields: [.contentType: "application/json"], body: Array(body))
    }

    /// The work runs to its end even if the client leaves; its errors are answered as problems.
    private static func write(_ work: @escaping @Sendable () async throws -> Response) -> Single<Response> {
        runningToEnd(work) { problem($0) }
    }
}
