import HTTPTesting
import HTTPTypes
import Rx
import Testing

@testable import HTTP

/// What each kind of handler value answers, through the in-process client (no sockets).
@Suite(.timeLimit(.minutes(1)))
struct InProcessRouteTests {
    @Test func eachTraitAnswersWithItsStatus() async {
        let router = Router()
        router.get("/value") { _ in "text" }
        router.get("/single") { _ -> Single<String> in .just("one") }
        router.get("/maybe/:id") { request -> Maybe<String> in request.parameters["id"] == "1" ? .just("found") : .empty() }
        router.put("/completable") { _ -> Completable in .empty() }
        router.delete("/completable") { _ -> Completable in .error(HTTPError(.conflict, detail: "in use")) }
        router.get("/throws") { _ -> Single<String> in throw HTTPError(.badRequest, detail: "no") }
        router.get("/crashes") { _ -> Single<String> in .error(CancellationError()) }
        let client = router.testClient()

        #expect(await client.execute(.get, "/value").text == "text")
        #expect(await client.execute(.get, "/single").text == "one")
        #expect(await client.execute(.get, "/maybe/1").text == "found")
        let empty = await client.execute(.get, "/maybe/2")
        #expect(empty.status == .notFound)
        #expect(empty.headerFields[.contentType] == "application/problem+json")
        #expect(await client.execute(.put, "/completable").status == .noContent)
        let failed = await client.execute(.delete, "/completable")
        #expect(failed.status == .conflict)
        #expect(failed.text.contains("in use"))
        #expect(await client.execute(.get, "/throws").status == .badRequest)
        #expect(await client.execute(.get, "/crashes").status == .internalServerError)
        // HEAD is served by the GET route, without running a second handler.
        #expect(await client.execute(.head, "/single").status == .ok)
    }

    @Test func aDriversStreamStartsWithItsCurrentValueThenFollows() async {
        let relay = BehaviorRelay(value: 1)
        let router = Router()
        router.get("/values") { _ -> Driver<ServerSentEvent> in
            relay.asDriver().map { ServerSentEvent(id: String($0), data: "value \($0)") }
        }
        let stream = await router.testClient().stream("/values")
        #expect(stream.head.status == .ok)
        #expect(stream.head.headerFields[.contentType] == "text/event-stream")
        #expect(await stream.next() == TestEvent(id: "1", data: "value 1"))
        relay.accept(2)
        #expect(await stream.next() == TestEvent(id: "2", data: "value 2"))
        stream.cancel()
    }

    @Test func aClientThatLeavesDisposesTheSignal() async {
        let subject = PublishRelay<Int>()
        let disposed = AsyncStream.makeStream(of: Void.self)
        let router = Router()
        router.get("/signal") { _ -> Signal<ServerSentEvent> in
            subject.asSignal().map { ServerSentEvent(data: "\($0)") }.do(onDispose: { disposed.continuation.yield() })
        }
        let stream = await router.testClient().stream("/signal")
        subject.accept(7)
        #expect(await stream.next()?.data == "7")
        stream.cancel()
        var iterator = disposed.stream.makeAsyncIterator()
        await iterator.next()  // the subscription was disposed; no sleep needed to know it
    }
}
