#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Base
import HTTPTypes

/// A value a handler can answer with.
///
/// `Response` is sent as it is, `String` as `text/plain`, `[UInt8]` as
/// `application/octet-stream`. Any `Encodable` type is sent as JSON once it
/// declares the conformance, which needs no code:
///
/// ```swift
/// struct Document: Codable, ResponseEncodable { ... }
/// ```
public protocol ResponseEncodable: ResponseGenerator {
    /// The response for this value (status 200 unless the value says otherwise).
    func response() throws -> Response
}

extension Response: ResponseEncodable {
    public func response() throws -> Response { self }
}

extension String: ResponseEncodable {
    public func response() throws -> Response { Response(text: self) }
}

extension Array: ResponseGenerator, ResponseEncodable where Element == UInt8 {
    public func response() throws -> Response {
        Response(headerFields: [.contentType: "application/octet-stream"], body: self)
    }
}

extension ResponseEncodable where Self: Encodable {
    /// The value as `application/json`, in the one JSON form of every layer (`Base.JSONCoding`).
    public func response() throws -> Response {
        let data = try JSONCoding.encoder.encode(self)
        return Response(headerFields: [.contentType: "application/json"], body: Array(data))
    }
}
