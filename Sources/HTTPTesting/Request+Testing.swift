import HTTP
import HTTPTypes

extension Request {
    /// A request as a handler receives it, for tests of code that takes a `Request` (a check,
    /// a helper) without a route: `Request.test(.put, "/documents/1", headerFields: [...])`.
    /// `target` is a path with an optional query; `parameters` stand for the route pattern's
    /// (`:id` → `["id": "7"]`); the ID is "test", the address 127.0.0.1.
    public static func test(
        _ method: HTTPRequest.Method = .get, _ target: String = "/", headerFields: HTTPFields = [:], body: [UInt8] = [],
        parameters: [String: String] = [:], version: HTTPVersion = .http1_1
    ) -> Request {
        Request(
            head: HTTPRequest(method: method, scheme: nil, authority: "test", path: target, headerFields: headerFields),
            version: version, parameters: PathParameters(parameters), body: body, id: "test", remoteAddress: "127.0.0.1")
    }
}
