extension Request {
    /// Whether the client's `If-None-Match` names `etag`, so a 304 answers it
    /// (RFC 9110 §13.1.2: weak comparison, `*` matches any current representation).
    public func isNotModified(etag: String) -> Bool {
        // A scan of the fields: a lookup by name builds an index of them all first.
        for field in headerFields where field.name == .ifNoneMatch && Self.names(field.value, etag) {
            return true
        }
        return false
    }

    private static func names(_ header: String, _ etag: String) -> Bool {
        let wanted = etag.hasPrefix("W/") ? etag.dropFirst(2) : Substring(etag)
        for candidate in header.split(separator: ",") {
            var tag = candidate.drop(while: { $0 == " " || $0 == "\t" })
            while tag.last == " " || tag.last == "\t" { tag = tag.dropLast() }
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == wanted { return true }
        }
        return false
    }
}
