import Base
import HTTPTypes
import Rx

/// Maps method and path patterns to handlers.
///
/// Patterns have literal segments, `:name` parameters (`/documents/:id`,
/// read with `request.parameters["id"]`) and an optional trailing `*` (the
/// rest of the path, as `request.parameters["*"]`). The first route added
/// that matches wins. A handler returns any `ResponseGenerator`: a value, or
/// the trait that states what the client gets (`Single`, `Maybe`,
/// `Completable`, a `Signal` or `Driver` of events; see `ResponseGenerator`).
///
/// Errors (thrown, or emitted by the trait) become RFC 9457 problem
/// responses: an `HTTPError` keeps its status, anything else is a 500. An
/// unknown path is 404, a known path with another method 405 with `Allow`;
/// HEAD is served by GET routes without the body; OPTIONS answers with
/// `Allow`. Register routes before creating the server.
public final class Router: Sendable {
    /// Runs a request on the connection's worker queue, answering through the sink.
    typealias Handler = @Sendable (Request, ResponseSink) -> Void

    struct Route: Sendable {
        /// Position in the router, a cheap key for per-route metrics.
        let id: Int
        let method: HTTPRequest.Method
        let pattern: RoutePattern
        let handler: Handler
    }

    /// One route as registered: for listings, and for tests that hold documentation to the routes.
    package struct RouteDescription: Sendable, Equatable {
        package let method: HTTPRequest.Method
        /// The pattern as given (`/documents/:id`).
        package let path: String
        /// The handler's answer type, as Swift names it
        /// (`Rx.PrimitiveSequence<Rx.SingleTrait, Signalbox.WriteReceipt>`).
        package let answer: String
    }

    /// Holds a request before its handler runs: `nil` lets it through at once, a
    /// `Completable` holds it until it completes, or answers its error instead.
    public typealias Gate = @Sendable (Request) -> Completable?

    private let routes = Locked<[Route]>([])
    private let gates = Locked<[Gate]>([])
    /// Kept apart from the routes, which a request copies.
    private let descriptions = Locked<[RouteDescription]>([])

    /// Creates an empty router.
    public init() {}

    func add(_ method: HTTPRequest.Method, _ path: String, answering answer: String, _ handler: @escaping Handler) {
        routes.withLock { routes in
            routes.append(Route(id: routes.count, method: method, pattern: RoutePattern(path), handler: handler))
        }
        descriptions.withLock { $0.append(RouteDescription(method: method, path: path, answer: answer)) }
    }

    /// Every route, in the order added.
    package var routeDescriptions: [RouteDescription] { descriptions.withLock { $0 } }

    /// Adds a gate every request passes before its route's handler (say, to wait for
    /// data the request asks to see). Gates run in the order added.
    public func gate(_ gate: @escaping Gate) {
        gates.withLock { $0.append(gate) }
    }

    /// The routes as they are now, for a server to use.
    package func table() -> RouteTable { RouteTable(routes: routes.withLock { $0 }, gates: gates.withLock { $0 }) }
}

/// An immutable snapshot of a router's routes: what a server answers with.
package struct RouteTable: RequestResponder {
    let routes: [Router.Route]
    var gates: [Router.Gate] = []

    package var allowedMethods: [String] {
        var methods = ["OPTIONS"]
        for route in routes where !methods.contains(route.method.rawValue) {
            methods.append(route.method.rawValue)
            if route.method == .get && !methods.contains("HEAD") { methods.append("HEAD") }
        }
        return methods
    }

    package func respond(to request: Request, sink: ResponseSink) {
        let segments = RoutePattern.segments(of: request.path)
        // The routes of the request's method first: the first of them that matches is the one the
        // full walk below would pick, without matching every other method's pattern (about 900
        // instructions each). The walk is for the rest: HEAD served by GET, 405, 404, OPTIONS.
        for route in routes where route.method == request.method {
            guard let parameters = route.pattern.match(segments) else { continue }
            run(route, parameters, request, sink)
            return
        }
        var allowed: [HTTPRequest.Method] = []
        var headFallback: (Router.Route, PathParameters)?
        for route in routes {
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == request.method {
                run(route, parameters, request, sink)
                return
            }
            if request.method == .head && route.method == .get && headFallback == nil {
                headFallback = (route, parameters)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if let (route, parameters) = headFallback {
            run(route, parameters, request, sink)
            return
        }
        if allowed.isEmpty {
            sink.fail(HTTPError(.notFound, detail: "No resource at \(request.path)."))
            return
        }
        var names = allowed.map(\.rawValue)
        if allowed.contains(.get) && !allowed.contains(.head) { names.append("HEAD") }
        if !names.contains("OPTIONS") { names.append("OPTIONS") }
        let allow = names.joined(separator: ", ")
        if request.method == .options {
            sink.respond(Response(status: .noContent, headerFields: [.allow: allow]))
        } else {
            sink.fail(HTTPError(.methodNotAllowed, detail: "\(request.method.rawValue) is not allowed on \(request.path).", headerFields: [.allow: allow]))
        }
    }

    private func run(_ route: Router.Route, _ parameters: PathParameters, _ request: Request, _ sink: ResponseSink) {
        var request = request
        request.parameters = parameters
        request.eventScheduler = sink.eventScheduler
        sink.setRoute(route.pattern.description, id: route.id)
        let held = gates.compactMap { $0(request) }
        guard let first = held.first else {
            route.handler(request, sink)
            return
        }
        let subscription = held.dropFirst().reduce(first) { $0.andThen($1) }.subscribe { [request] event in
            switch event {
            case .completed: sink.onQueue { route.handler(request, sink) }
            case .error(let error): sink.fail(error)
            }
        }
        sink.onCancel { subscription.dispose() }
    }
}

extension Router: RouteBuilder {
    /// Adds a route: `handler`'s value answers requests for `method` and `path`.
    public func on<Generator: ResponseGenerator>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Generator) {
        add(method, path, answering: String(reflecting: Generator.self)) { request, sink in
            let reply = sink.run { try handler(request).reply(to: request) }
            reply?.answer(through: sink)
        }
    }
}
