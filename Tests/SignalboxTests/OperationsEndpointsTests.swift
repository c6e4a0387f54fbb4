import Base
import Foundation
import HTTP
import HTTPTesting
import Rx
import Testing
@testable import Signalbox

/// `/readyz` from a live server over a real socket: the body JSONEncoder makes for the replica's status, made
/// again whenever a value changes, and its readiness as the rules say at each request.
@Suite struct OperationsEndpointsTests {
    struct State {
        var ready = true
        var applied: Int64 = 5
        var head: Int64 = 7
    }

    @Test func readyzAnswersTheCurrentStatusAndValues() async throws {
        let state = Locked(State())
        let router = Router()
        OperationsEndpoints(
            isReady: { state.withLock { $0.ready } },
            status: { state.withLock { ReplicaStatus(epoch: "e/1", applied: $0.applied, head: $0.head) } }
        ).register(on: router)
        func expected(_ status: String) throws -> String {
            let encoder = JSONCoding.encoder  // the one JSON form of every response
            var replica = state.withLock { ReplicaStatus(epoch: "e/1", applied: $0.applied, head: $0.head) }
            replica.status = status
            return String(decoding: try encoder.encode(replica), as: UTF8.self)
        }

        // `throws` spelled out: the closure's only `try`s are inside #expect.
        try await router.withTestClient(.live) { client async throws in
            func readyz() async throws -> (Int, String) {
                let response = try await client.execute(.get, "/readyz")
                return (response.status.code, response.text)
            }
            #expect(try await readyz() == (200, try expected("ready")))
            #expect(try await readyz() == (200, try expected("ready")))  // the kept answer
            state.withLock { $0.applied = 7 }
            #expect(try await readyz() == (200, try expected("ready")))
            #expect(try expected("ready").contains(#""applied":7"#))
            state.withLock { $0.ready = false }
            #expect(try await readyz() == (503, try expected("unavailable")))
            state.withLock { $0.ready = true; $0.head = 9 }
            #expect(try await readyz() == (200, try expected("ready")))
        }
    }
}
