import Foundation

/// A key made with `POST /keys`, as the store keeps it: what it may do, where, until when.
/// Its secret is not here: it is derived from `keys.masterSecret` and the id (``KeySecrets``).
struct StoredKey: Sendable, Equatable, Codable {
    let id: String
    let name: String
    let actions: [AccessAction]
    /// Collection names, or `*` for every collection.
    let collections: [String]
    let expiresAt: Date?
    let createdAt: Date

    func allows(_ action: AccessAction) -> Bool {
        actions.contains(.all) || actions.contains(action)
    }

    func allows(collection: String) -> Bool {
        collections.contains("*") || collections.contains(collection)
    }

    func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// The JSON kept in the store and answered by `GET /keys` (no secret in it).
    func json() -> [UInt8] {
        Array((try? Self.encoder.encode(self)) ?? Data("{}".utf8))
    }

    static func decode(_ body: Data) throws -> StoredKey {
        try decoder.decode(StoredKey.self, from: body)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
