import HTTPTypes

/// The response head of a `text/event-stream`.
enum EventStream {
    /// `no-cache` keeps caches from holding the stream; `X-Accel-Buffering: no`
    /// keeps nginx from buffering it.
    static let head = Response(status: .ok, headerFields: [
        .contentType: "text/event-stream",
        .cacheControl: "no-cache",
        .xAccelBuffering: "no",
    ])
}
