import HTTPTypes

/// What routes are added to: the router itself, or a group whose routes share a check.
/// The verbs are written once, here.
public protocol RouteBuilder: Sendable {
    /// Adds a route: `handler`'s value answers requests for `method` and `path`.
    func on<Generator: ResponseGenerator>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator)
}

extension RouteBuilder {
    /// GET (and HEAD) `path`.
    public func get<Generator: ResponseGenerator>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) { on(.get, path, handler) }
    /// POST `path`.
    public func post<Generator: ResponseGenerator>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) { on(.post, path, handler) }
    /// PUT `path`.
    public func put<Generator: ResponseGenerator>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) { on(.put, path, handler) }
    /// DELETE `path`.
    public func delete<Generator: ResponseGenerator>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) { on(.delete, path, handler) }
    /// PATCH `path`.
    public func patch<Generator: ResponseGenerator>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) { on(.patch, path, handler) }
    /// HEAD `path` (GET routes already answer HEAD).
    public func head<Generator: ResponseGenerator>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) { on(.head, path, handler) }

    /// Routes added through the result run `check` first; what it throws (say, a 401 or a
    /// 429) is the answer and the handler does not run. Checks of nested groups run outside in.
    public func checking(_ check: @escaping @Sendable (Request) throws -> Void) -> RouteGroup {
        RouteGroup(parent: self, check: check)
    }
}

/// Routes that pass one check before their handlers run: authorization, limits.
public struct RouteGroup: RouteBuilder {
    let parent: any RouteBuilder
    let check: @Sendable (Request) throws -> Void

    public func on<Generator: ResponseGenerator>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) {
        parent.on(method, path) { [check] request in
            try check(request)
            return try handler(request)
        }
    }
}
