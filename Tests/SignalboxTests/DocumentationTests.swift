import Foundation
import HTTP
import Logging
import Search
import Testing
@testable import Signalbox

/// Keeps the README's tables true: the settings (run with SIGNALBOX_UPDATE_DOCS=1 to rewrite
/// it) and the endpoints, each with the type its handler returns.
@Suite struct DocumentationTests {
    @Test func readmeSettingsTableIsCurrent() throws {
        let url = SettingsTests.root.appendingPathComponent("README.md")
        let readme = try String(contentsOf: url, encoding: .utf8)
        let start = "<!-- settings-table:start -->\n", end = "<!-- settings-table:end -->"
        let table = SettingsReference.markdownTable + "\n"
        guard let open = readme.range(of: start), let close = readme.range(of: end) else {
            Issue.record("README.md lacks the settings-table markers")
            return
        }
        let current = String(readme[open.upperBound..<close.lowerBound])
        if current != table, ProcessInfo.processInfo.environment["SIGNALBOX_UPDATE_DOCS"] == "1" {
            try (String(readme[..<open.upperBound]) + table + String(readme[close.lowerBound...]))
                .write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(current == table, "README settings table is stale: run SIGNALBOX_UPDATE_DOCS=1 swift test --filter DocumentationTests")
    }

    /// Every row of the README's endpoint table names routes the service has, with the type
    /// their handlers return; every route of the service has a row.
    @Test func readmeEndpointTableMatchesTheRoutes() async throws {
        let readme = try String(contentsOf: SettingsTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = try #require(Self.endpointRows(readme), "README.md lacks the endpoints-table markers")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: settings.storePath)
        let service = try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: [], store: store, snapshot: try await store.snapshot())
        let routes = service.router.routeDescriptions
        var documented: Set<String> = []
        for (endpoints, answer) in rows {
            for endpoint in endpoints {
                documented.insert(endpoint)
                let route = routes.first { "\($0.method.rawValue) \($0.path)" == endpoint }
                #expect(route != nil, "the README lists \(endpoint), which the service does not route")
                if let route { #expect(Self.traitName(route.answer) == answer, "\(endpoint) returns \(route.answer)") }
            }
        }
        for route in routes {
            #expect(documented.contains("\(route.method.rawValue) \(route.path)"), "the README lacks \(route.method) \(route.path)")
        }
        #expect(Self.traitName("Rx.Infallible<Signalbox.ChangeFeed<Signalbox.EventEndpoints.FramedChange>.Item>")
            == "Infallible<ChangeFeed.Item>")
    }

    /// `openapi.yaml` (served at `/openapi.yaml`, read by schemathesis) describes every route the
    /// service has and no other; every collection route but its creation answers a 404 problem for
    /// a collection that does not exist, `/events?collection=` too, and every write a 401.
    @Test func openAPIDescribesEveryRoute() async throws {
        let yaml = try String(
            contentsOf: SettingsTests.root.appendingPathComponent("Sources/Signalbox/Resources/openapi.yaml"), encoding: .utf8)
        let operations = Self.openAPIOperations(yaml)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: settings.storePath)
        let service = try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: [], store: store, snapshot: try await store.snapshot())
        let routes = Set(service.router.routeDescriptions.map { route in
            let path = route.path.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return "\(route.method.rawValue) \(path)"
        })
        #expect(routes.subtracting(operations.keys).isEmpty, "openapi.yaml lacks \(routes.subtracting(operations.keys).sorted())")
        #expect(Set(operations.keys).subtracting(routes).isEmpty, "openapi.yaml describes \(Set(operations.keys).subtracting(routes).sorted()), not routed")
        for (operation, statuses) in operations {
            // Every operation on a collection but its creation needs the collection to exist.
            if operation.contains("/collections/{name}") && operation != "PUT /collections/{name}" {
                #expect(statuses.contains("404"), "\(operation) lacks its 404")
            }
            if !operation.hasPrefix("GET ") { #expect(statuses.contains("401"), "\(operation) lacks its 401") }
        }
        #expect(operations["GET /events"]?.contains("404") == true, "GET /events lacks the 404 of an unknown collection")
    }

    /// `"METHOD /path"` → the response statuses of each operation of an OpenAPI document in this
    /// repository's layout (paths at two spaces, methods at four, statuses at eight, quoted).
    static func openAPIOperations(_ yaml: String) -> [String: Set<String>] {
        var operations: [String: Set<String>] = [:]
        var path: String?, operation: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                (path, operation) = (String(line.dropFirst(2).dropLast()), nil)
            } else if !line.hasPrefix(" ") {
                (path, operation) = (nil, nil)
            } else if let path, let method = line.wholeMatch(of: #/    (get|put|post|delete|head|patch):/#)?.1 {
                operation = "\(method.uppercased()) \(path)"
                operations[operation!] = []
            } else if let current = operation, let status = line.wholeMatch(of: #/        '(\d{3})':.*/#)?.1 {
                operations[current]?.insert(String(status))
            }
        }
        return operations
    }

    /// The table's rows: the routes of the first cell (`GET /documents/{id}` is `GET
    /// /documents/:id`; `{a,b}` stands for each; the query is left out) and the first type
    /// named in the second.
    static func endpointRows(_ readme: String) -> [(endpoints: [String], answer: String)]? {
        guard let open = readme.range(of: "<!-- endpoints-table:start -->\n"),
            let close = readme.range(of: "<!-- endpoints-table:end -->")
        else { return nil }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").dropFirst(2).map { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let endpoints = quoted(cells[0]).flatMap { endpoint -> [String] in
                let parts = endpoint.split(separator: " ", maxSplits: 1).map(String.init)
                let path = String(parts[1].prefix { $0 != "?" })
                return expand(path).map { "\(parts[0]) \($0)" }
            }
            return (endpoints, quoted(cells[1]).first ?? "")
        }
    }

    static func quoted(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// `/assets/{a.js,b.css}` is two paths; `/documents/{id}` is `/documents/:id`.
    static func expand(_ path: String) -> [String] {
        guard let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") else { return [path] }
        let inside = path[path.index(after: open)..<close]
        let (head, tail) = (String(path[..<open]), String(path[path.index(after: close)...]))
        let choices = inside.contains(",") ? inside.split(separator: ",").map(String.init) : [":\(inside)"]
        return choices.flatMap { choice in expand(tail).map { head + choice + $0 } }
    }

    /// A handler's answer type as the README names it: no module names, the traits by their
    /// aliases, and no generic arguments inside the element (`ChangeFeed<…>.Item` is `ChangeFeed.Item`).
    static func traitName(_ reflected: String) -> String {
        var name = reflected.replacingOccurrences(of: #"\b[A-Z][A-Za-z]*\.(?=[A-Z])"#, with: "", options: .regularExpression)
        for (long, short) in [
            ("PrimitiveSequence<SingleTrait, ", "Single<"), ("PrimitiveSequence<MaybeTrait, ", "Maybe<"),
            ("SharedSequence<DriverSharingStrategy, ", "Driver<"), ("SharedSequence<SignalSharingStrategy, ", "Signal<"),
        ] where name.hasPrefix(long) {
            name = short + name.dropFirst(long.count)
        }
        guard let open = name.firstIndex(of: "<") else { return name }
        var element = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
        while let inner = element.range(of: #"<[^<>]*>"#, options: .regularExpression) { element.removeSubrange(inner) }
        return "\(name[..<open])<\(element)>"
    }
}
