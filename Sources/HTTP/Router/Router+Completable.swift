import HTTPTypes
import Rx

extension Router {
    /// Adds a route whose handler returns a `Completable`: 204 on completion,
    /// or the problem response for its error.
    public func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) {
        add(method, path) { request, sink in
            guard let completable = sink.run({ try handler(request) }) else { return }
            let subscription = completable.subscribe { event in
                switch event {
                case .completed: sink.respond(Response(status: .noContent))
                case .error(let error): sink.fail(error)
                }
            }
            sink.onCancel { subscription.dispose() }
        }
    }
}

extension Router {
    /// GET (and HEAD) `path`; the handler's `Completable` answers 204.
    public func get(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) { on(.get, path, handler) }
    /// POST `path`; the handler's `Completable` answers 204.
    public func post(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) { on(.post, path, handler) }
    /// PUT `path`; the handler's `Completable` answers 204.
    public func put(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) { on(.put, path, handler) }
    /// DELETE `path`; the handler's `Completable` answers 204.
    public func delete(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) { on(.delete, path, handler) }
    /// PATCH `path`; the handler's `Completable` answers 204.
    public func patch(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) { on(.patch, path, handler) }
    /// HEAD (GET routes already answer HEAD) `path`; the handler's `Completable` answers 204.
    public func head(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Completable) { on(.head, path, handler) }
}
