import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Testing
@testable import Signalbox

/// The search page and its assets, served by a live server over a real socket.
@Suite struct WebEndpointsTests {
    @Test func servesThePageAndItsAssetsWithTheirTypesAndPolicy() async throws {
        let router = Router()
        WebEndpoints().register(on: router)
        let expected = [
            ("/", "text/html; charset=utf-8", #"<script src="/assets/app.js" defer></script>"#),
            ("/assets/app.js", "text/javascript; charset=utf-8", #""use strict";"#),
            ("/assets/refine.js", "text/javascript; charset=utf-8", "class Refinements"),
            ("/assets/style.css", "text/css; charset=utf-8", ":root {"),
            ("/assets/icon.svg", "image/svg+xml", "<svg"),
        ]
        #expect(expected.map(\.0) == WebEndpoints.routes.map(\.path))
        try await router.withTestClient(.live) { client in
            for (path, contentType, excerpt) in expected {
                let response = try await client.execute(.get, path)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headerFields[.contentType] == contentType, "\(path)")
                #expect(response.headerFields[.cacheControl] == "no-cache", "\(path)")
                #expect(response.headerFields[.eTag]?.hasPrefix("\"") == true, "\(path)")
                #expect(response.headerFields[.contentSecurityPolicy] == WebEndpoints.contentSecurityPolicy, "\(path)")
                #expect(response.text.contains(excerpt), "\(path)")
            }
        }
    }

    @Test func anUnchangedAssetIsNotModified() throws {
        let asset = try #require(WebEndpoints.load("index.html", contentType: "text/html; charset=utf-8"))
        func request(ifNoneMatch: String?) -> Request {
            var fields = HTTPFields()
            fields[.ifNoneMatch] = ifNoneMatch
            return Request.test(.get, "/", headerFields: fields)
        }
        let fresh = WebEndpoints.response(for: asset, to: request(ifNoneMatch: nil))
        #expect(fresh.status == .ok)
        #expect(fresh.body == asset.body)
        let cached = WebEndpoints.response(for: asset, to: request(ifNoneMatch: asset.etag))
        #expect(cached.status == .notModified)
        #expect(cached.body.isEmpty)
        #expect(cached.headerFields[.eTag] == asset.etag)
        #expect(WebEndpoints.response(for: asset, to: request(ifNoneMatch: "\"stale\"")).status == .ok)
    }

    @Test func thePolicyAllowsOnlyThisOrigin() {
        let policy = WebEndpoints.contentSecurityPolicy
        #expect(policy.hasPrefix("default-src 'none'"))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("http"))
    }
}
