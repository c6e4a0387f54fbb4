/// What a connection knows of its input besides the parser: whether it still reads requests,
/// whether it paused, and what the poller said about the peer.
///
/// A value inside its connection, touched only on the worker's queue. Flags only: a field that
/// holds an object would release it inside the access that replaces it, which can run a
/// deinit, and Swift would then check every access to these flags at run time (see
/// `ResponseWriter`).
struct InputState {
    /// No further requests are read (close requested, parse error, draining).
    var stopsRequests = false
    /// Paused at the pipelining bound; the read resumes when the oldest request is answered.
    var isPaused = false
    /// A streamed body's handler has as much unread as it may: the read resumes when it reads on.
    var bodyIsFull = false
    /// The poller reported a reset or a hangup: reads go on until one fails.
    var peerHungUp = false
    /// The poller reported that the peer closed its sending side: the end of input waits to be read.
    var peerClosedInput = false
    /// A TLS read must send first (the socket's writability resumes it).
    var readWantsWrite = false
    /// A read is being handled: answers made meanwhile are queued and written once it is done.
    var inReadHandler = false

    /// Whether the socket is left unread for now (either bound above).
    var holdsReads: Bool { isPaused || bodyIsFull }
}
