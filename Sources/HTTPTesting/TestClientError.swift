/// Why a test client could not do what it was asked: the server closed or did not answer in
/// time, it answered something that is not HTTP/1.1, or the transport cannot do it.
public struct TestClientError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
