/// Bounds a collection document must respect; the service maps a violation to 422.
public struct CollectionDocumentLimits: Sendable, Hashable {
    /// Largest JSON body, in bytes. Default 64 KiB.
    public var maxBodyBytes: Int = 65_536
    /// Longest id, in UTF-8 bytes. Default 512.
    public var maxIdBytes: Int = 512
    /// Longest value of a declared `string` field or element of a `string[]`, in UTF-8 bytes. Default 8,192.
    public var maxStringBytes: Int = 8_192
    /// Most elements of a `string[]` value. Default 1,000.
    public var maxArrayElements: Int = 1_000

    public init() {}

    /// The defaults above.
    public static let `default` = CollectionDocumentLimits()
}
