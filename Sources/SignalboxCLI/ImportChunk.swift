/// One request's body of an import, cut from a file at a record boundary.
struct ImportChunk {
    var body: [UInt8]
    /// What turns a line number the server reports for this body into the file's:
    /// the file's line is the server's plus this (negative when a CSV header was repeated).
    var lineOffset: Int
}
