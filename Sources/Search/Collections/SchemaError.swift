/// Why a collection schema (the body of `PUT /collections/{name}`) or a collection name cannot
/// be used: where (`path`, e.g. `fields[2].type`; empty for the body as a whole) and what is
/// wrong. `description` is fit for a 400 problem body: `fields[2].type: unknown type 'strng' ...`.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
