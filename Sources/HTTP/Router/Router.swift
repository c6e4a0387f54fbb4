/// Temporary router stand-in until the trait layer lands.
public final class Router: Sendable, RequestResponder {
    public init() {}
    func respond(to request: Request, sink: ResponseSink) {
        sink.respond(Response(text: "ok"))
    }
    var allowedMethods: [String] { ["GET", "HEAD", "OPTIONS"] }
}
