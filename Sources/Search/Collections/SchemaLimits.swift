/// The bounds of a collection schema and of the names in it.
public struct SchemaLimits: Sendable, Hashable {
    /// Most declared fields. Default 64.
    public var maxFields: Int = 64
    /// Longest schema body, in bytes. Default 64 KiB (64 fields take about 6 KiB).
    public var maxBodyBytes: Int = 65_536

    /// Longest field or collection name, in characters (all ASCII).
    public static let maxNameLength = 64

    public init() {}

    /// The defaults above.
    public static let `default` = SchemaLimits()
}
