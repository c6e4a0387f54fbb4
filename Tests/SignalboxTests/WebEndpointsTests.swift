import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP
import HTTPTypes
import Logging
import Testing
@testable import Signalbox

/// The search page and its assets, served over a real socket.
@Suite struct WebEndpointsTests {
    @Test func servesThePageAndItsAssetsWithTheirTypesAndPolicy() async throws {
        let router = Router()
        WebEndpoints().register(on: router)
        var logger = Logger(label: "test.web")
        logger.logLevel = .error
        let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 2), router: router, logger: logger)
        let port = try server.start()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)

        let expected = [
            ("/", "text/html; charset=utf-8", #"<script src="/assets/app.js" defer></script>"#),
            ("/assets/app.js", "text/javascript; charset=utf-8", #""use strict";"#),
            ("/assets/style.css", "text/css; charset=utf-8", ":root {"),
            ("/assets/icon.svg", "image/svg+xml", "<svg"),
        ]
        #expect(expected.map(\.0) == WebEndpoints.routes.map(\.path))
        for (path, contentType, excerpt) in expected {
            let (data, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200, "\(path)")
            #expect(http.value(forHTTPHeaderField: "Content-Type") == contentType, "\(path)")
            #expect(http.value(forHTTPHeaderField: "Cache-Control") == "no-cache", "\(path)")
            #expect(http.value(forHTTPHeaderField: "ETag")?.hasPrefix("\"") == true, "\(path)")
            #expect(http.value(forHTTPHeaderField: "Content-Security-Policy") == WebEndpoints.contentSecurityPolicy, "\(path)")
            #expect(String(decoding: data, as: UTF8.self).contains(excerpt), "\(path)")
        }
        session.finishTasksAndInvalidate()
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func anUnchangedAssetIsNotModified() throws {
        let asset = try #require(WebEndpoints.load("index.html", contentType: "text/html; charset=utf-8"))
        func request(ifNoneMatch: String?) -> Request {
            var fields = HTTPFields()
            fields[.ifNoneMatch] = ifNoneMatch
            return Request(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/", headerFields: fields))
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
