import HTTPTypes
import Rx

extension Router {
    /// Adds a route whose handler returns a `Single`: 200 with the element
    /// encoded, or the problem response for its error.
    public func on<T: ResponseEncodable>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) {
        add(method, path) { request, sink in
            guard let single = sink.run({ try handler(request) }) else { return }
            let subscription = single.subscribe { event in
                switch event {
                case .success(let value): sink.respond(encoding: value)
                case .failure(let error): sink.fail(error)
                }
            }
            sink.onCancel { subscription.dispose() }
        }
    }
}

extension Router {
    /// GET (and HEAD) `path`; the handler's `Single` answers 200 with its element.
    public func get<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) { on(.get, path, handler) }
    /// POST `path`; the handler's `Single` answers 200 with its element.
    public func post<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) { on(.post, path, handler) }
    /// PUT `path`; the handler's `Single` answers 200 with its element.
    public func put<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) { on(.put, path, handler) }
    /// DELETE `path`; the handler's `Single` answers 200 with its element.
    public func delete<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) { on(.delete, path, handler) }
    /// PATCH `path`; the handler's `Single` answers 200 with its element.
    public func patch<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) { on(.patch, path, handler) }
    /// HEAD (GET routes already answer HEAD) `path`; the handler's `Single` answers 200 with its element.
    public func head<T: ResponseEncodable>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Single<T>) { on(.head, path, handler) }
}
