/// What a request does, as a key's `actions` name it. Each route declares the one it needs.
enum AccessAction: String, Sendable, CaseIterable, Codable {
    /// Search and live search.
    case search
    case documentsRead = "documents.read"
    case documentsWrite = "documents.write"
    case collectionsWrite = "collections.write"
    /// The change stream, `/events`.
    case events
    case keysManage = "keys.manage"
    /// Every action.
    case all = "*"

    /// Whether a public collection allows this without a key.
    var isPublicRead: Bool { self == .search || self == .documentsRead || self == .events }

    /// Whether this writes (the write rate limit applies per key).
    var isWrite: Bool { self == .documentsWrite || self == .collectionsWrite || self == .keysManage }
}
