@testable import HTTP
import Testing

/// Which requests a `LargerBody` rule gives its limit: the method, then the path's start and
/// end, bytewise, with the query left out.
@Suite struct LargerBodyTests {
    static let limits: ParserLimits = {
        var limits = ParserLimits(maxBodyLength: 100)
        limits.largerBodies = [
            LargerBody(method: "POST", pathPrefix: "/collections/", pathSuffix: "/documents", maxLength: 1_000, streamed: true),
            LargerBody(method: "PUT", pathPrefix: "/bulk", pathSuffix: "", maxLength: 500),
        ]
        return limits
    }()

    @Test func theFirstMatchingRuleGivesItsLimit() {
        #expect(Self.limits.maxBodyLength(method: "POST", path: "/collections/shop/documents") == 1_000)
        #expect(Self.limits.maxBodyLength(method: "POST", path: "/collections/shop/documents?mode=replace") == 1_000)
        #expect(Self.limits.maxBodyLength(method: "PUT", path: "/bulk/x") == 500)
        #expect(Self.limits.streamedBody(method: "POST", path: "/collections/ö/documents")?.maxLength == 1_000)
        #expect(Self.limits.streamedBody(method: "PUT", path: "/bulk") == nil)  // matches, but is read whole
    }

    @Test func otherMethodsAndPathsKeepTheDefault() {
        #expect(Self.limits.maxBodyLength(method: "GET", path: "/collections/shop/documents") == 100)
        #expect(Self.limits.maxBodyLength(method: "POST", path: "/collections/shop/documents/x") == 100)
        #expect(Self.limits.maxBodyLength(method: "POST", path: "/other?/collections/documents") == 100)
        // Prefix and suffix may not share bytes: "/collections/documents" is too short for both.
        #expect(Self.limits.maxBodyLength(method: "POST", path: "/collections/documents") == 100)
        #expect(Self.limits.maxBodyLength(method: "POST", path: nil) == 100)
        #expect(ParserLimits(maxBodyLength: 7).maxBodyLength(method: "POST", path: "/collections/a/documents") == 7)
    }
}
