import HTTPTypes
import Rx

extension Router {
    /// Adds a route whose handler returns a `Maybe`: 200 with the element
    /// encoded, 404 when it completes empty, or the problem response for its error.
    public func on<T: ResponseEncodable>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) {
        add(method, path) { request, sink in
            guard let maybe = sink.run({ try handler(request) }) else { return }
            let subscription = maybe.subscribe { event in
                switch event {
                case .success(let value): sink.respond(encoding: value)
                case .error(let error): sink.fail(error)
                case .completed: sink.fail(HTTPError(.notFound, detail: "No resource at \(request.path)."))
                }
            }
            sink.onCancel { subscription.dispose() }
        }
    }
}

extension Router {
    /// GET (and HEAD) `path`; the handler's `Maybe` answers 200 with its element or 404 when empty.
    public func get<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) { on(.get, path, handler) }
    /// POST `path`; the handler's `Maybe` answers 200 with its element or 404 when empty.
    public func post<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) { on(.post, path, handler) }
    /// PUT `path`; the handler's `Maybe` answers 200 with its element or 404 when empty.
    public func put<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) { on(.put, path, handler) }
    /// DELETE `path`; the handler's `Maybe` answers 200 with its element or 404 when empty.
    public func delete<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) { on(.delete, path, handler) }
    /// PATCH `path`; the handler's `Maybe` answers 200 with its element or 404 when empty.
    public func patch<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) { on(.patch, path, handler) }
    /// HEAD (GET routes already answer HEAD) `path`; the handler's `Maybe` answers 200 with its element or 404 when empty.
    public func head<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Maybe<T>) { on(.head, path, handler) }
}
