import Foundation
import Rx
import Search

/// Makes and deletes stored keys: each a write to the store (so it survives restarts and reaches
/// every replica through the change log), answered once this replica applies it.
final class KeyService: Sendable {
    /// Longest key name, in bytes.
    static let maxNameBytes = 200
    /// Most collections one key may name.
    static let maxCollections = 1_000
    /// Most stored keys (a new one beyond is a 409).
    static let maxKeys = 10_000

    let registry: KeyRegistry
    let secrets: KeySecrets?
    private let store: any DocumentStore
    private let applier: ChangeApplier
    private let applyWait: RxTimeInterval
    private let now: @Sendable () -> Date

    init(
        registry: KeyRegistry, secrets: KeySecrets?, store: any DocumentStore, applier: ChangeApplier, applyWait: RxTimeInterval,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.registry = registry
        self.secrets = secrets
        self.store = store
        self.applier = applier
        self.applyWait = applyWait
        self.now = now
    }

    /// What `POST /keys` takes.
    private struct Request: Decodable {
        var name: String?
        var actions: [String]
        var collections: [String]
        var expiresAt: String?
    }

    /// A new key from `json`; its secret is returned once, here, and never stored.
    func create(json: [UInt8]) async throws -> (key: StoredKey, secret: String) {
        guard let secrets else {
            throw KeyError.noMasterSecret
        }
        let key = try validate(json)
        guard registry.all.count < Self.maxKeys else {
            throw KeyError.tooManyKeys(limit: Self.maxKeys)
        }
        let body = Data(key.json())
        let sequence = try await store.commit(.upsert(collection: KeyRegistry.collection, id: key.id, body: body))
        try await applier.applyWrite(
            ChangeApplier.Change(sequence: sequence, collection: KeyRegistry.collection, id: key.id, body: body), waitingAtMost: applyWait)
        return (key, secrets.key(id: key.id))
    }

    /// Deletes key `id`: refused from the moment the change is applied, on every replica as it applies it.
    func delete(id: String) async throws {
        guard registry.key(id: id) != nil else { throw KeyError.noSuchKey(id) }
        let sequence = try await store.commit(.delete(collection: KeyRegistry.collection, id: id, inBaseData: false))
        try await applier.applyWrite(
            ChangeApplier.Change(sequence: sequence, collection: KeyRegistry.collection, id: id, body: nil), waitingAtMost: applyWait)
    }

    private func validate(_ json: [UInt8]) throws(KeyError) -> StoredKey {
        let request: Request
        do {
            request = try JSONDecoder().decode(Request.self, from: Data(json))
        } catch {
            throw KeyError.invalid("Send {\"name\", \"actions\": [...], \"collections\": [...], \"expiresAt\"}: \(Self.describe(error))")
        }
        let name = request.name ?? ""
        guard name.utf8.count <= Self.maxNameBytes else { throw KeyError.invalid("name is longer than \(Self.maxNameBytes) bytes.") }
        guard !request.actions.isEmpty else { throw KeyError.invalid("actions must name at least one action.") }
        var actions: [AccessAction] = []
        for text in request.actions {
            guard let action = AccessAction(rawValue: text) else {
                throw KeyError.invalid("\(text.prefix(64)) is not an action: \(AccessAction.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if !actions.contains(action) { actions.append(action) }
        }
        guard !request.collections.isEmpty, request.collections.count <= Self.maxCollections else {
            throw KeyError.invalid("collections must name 1 to \(Self.maxCollections) collections, or [\"*\"].")
        }
        for collection in request.collections where collection != "*" {
            guard CollectionSchema.isValidCollectionName(collection) else {
                throw KeyError.invalid("\(collection.prefix(80)) is not a collection name.")
            }
        }
        var expiresAt: Date?
        if let text = request.expiresAt {
            guard let date = Self.date(text) else {
                throw KeyError.invalid("expiresAt must be an ISO 8601 date and time, such as 2027-01-01T00:00:00Z.")
            }
            guard date > now() else { throw KeyError.invalid("expiresAt \(text.prefix(40)) is in the past.") }
            expiresAt = date
        }
        return StoredKey(
            id: KeySecrets.newID(), name: name, actions: actions, collections: Array(Set(request.collections)).sorted(),
            expiresAt: expiresAt, createdAt: now())
    }

    private static func date(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\(key.stringValue) is required."
        case DecodingError.typeMismatch(_, let context): "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type."
        default: "the body is not valid JSON."
        }
    }
}

/// Why a key cannot be made or deleted; the endpoint answers each as a problem.
enum KeyError: Error, Equatable {
    /// `keys.masterSecret` is not set.
    case noMasterSecret
    case tooManyKeys(limit: Int)
    case noSuchKey(String)
    /// The request is not a valid key (a 400): what is wrong.
    case invalid(String)
}
