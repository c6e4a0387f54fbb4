import Dispatch
import Foundation
import HTTP
import HTTPTypes
import Rx
import Search

/// `GET /search` (a Single over the shared lookup) and `GET /search/live` (its Driver over SSE).
struct SearchEndpoints {
    let lookups: SearchLookups
    /// The cities are public: only a credential that is not valid (401) or a token that filters them (403) is refused.
    var access: Access? = nil
    var liveQueries = LiveQueryLimit()
    var maxLiveQueries: @Sendable () -> Int = { 0 }

    func register(on router: some RouteBuilder) {
        router.get("/search") { request -> Single<Response> in
            let started = DispatchTime.now().uptimeNanoseconds
            try access?.checkCities(request, .search)
            let query = PreparedQuery(try SearchParameters.query(from: request))
            return lookups.first(query).map { payload in
                if request.isNotModified(etag: payload.etag) {
                    return Response(status: .notModified, headerFields: [.eTag: payload.etag, .cacheControl: "no-cache"])
                }
                // One literal: setting a field afterwards looks its name up first.
                let fields: HTTPFields = [.eTag: payload.etag, .cacheControl: "no-cache", .contentType: "application/json"]
                let took = Int((DispatchTime.now().uptimeNanoseconds &- started) / 1000)
                return Response(status: .ok, headerFields: fields, body: payload.body(tookMicroseconds: took))
            }
        }

        router.get("/search/live") { request -> Driver<ServerSentEvent> in
            try access?.checkCities(request, .search)
            let query = PreparedQuery(try SearchParameters.query(from: request))
            let (key, liveQueries) = (query.key, liveQueries)
            try liveQueries.register(key, maxQueries: maxLiveQueries())
            return lookups.driver(for: query).do(onDispose: { liveQueries.release(key) }).map { payload in
                ServerSentEvent(
                    event: "result",
                    data: String(decoding: payload.body(tookMicroseconds: payload.computeMicroseconds), as: UTF8.self))
            }
        }
    }
}
