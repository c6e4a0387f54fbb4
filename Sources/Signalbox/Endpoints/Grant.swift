import Foundation
import HTTP
import Search

/// What one request was allowed, decided once at the edge (``Access``): who holds it and, for
/// a tenant token, the filter every read it makes is limited to.
struct Grant: Sendable {
    enum Holder: Sendable {
        /// No key: public collections (everything, on a server with no admin key).
        case anonymous(open: Bool)
        /// An admin key (`apiKey`, `apiKeys`, `apiKeysFile`): every action on every collection.
        case admin
        /// A stored key (`POST /keys`).
        case key(StoredKey)
        /// A tenant token and the stored key that signed it.
        case token(VerifiedToken, parent: StoredKey)
    }

    let holder: Holder
    /// The kind of key of the write rate limit's bucket (`admin:`, `key:`; "" for anonymous writes).
    private let rateKind: String
    /// Which key of that kind.
    private let rateID: String

    /// `rateKey` is made of `rateKind` and `rateID` only when a write rate limit asks for it (not
    /// on every request: the concatenation cost about 5,000 instructions of each admin's write).
    init(holder: Holder, rateKind: String, rateID: String) {
        (self.holder, self.rateKind, self.rateID) = (holder, rateKind, rateID)
    }

    /// The write rate limit's bucket: one per key ("" for anonymous writes).
    var rateKey: String { rateKind + rateID }

    /// The tenant token's compiled rule for `collection`; nil for any other holder (no limit).
    func tenantRule(for collection: String, schema: CollectionSchema) throws(HTTPError) -> VerifiedToken.Compiled? {
        guard case .token(let token, _) = holder else { return nil }
        do throws(VerifiedToken.NoRule) {
            return try token.compiled(for: collection, schema: schema)
        } catch {
            throw HTTPError(.forbidden, detail: error.description)
        }
    }

    /// `query` limited to the tenant's rule: `(rule) AND (query's own filter)`, so the request's
    /// own `OR` can never widen it.
    func limiting(_ query: CollectionQuery, collection: String, schema: CollectionSchema) throws(HTTPError) -> CollectionQuery {
        guard let rule = try tenantRule(for: collection, schema: schema)?.filter else { return query }
        var limited = query
        limited.filter = query.filter.map { FilterExpression.and([rule, $0]) } ?? rule
        return limited
    }

    /// Whether this holder may see `collection` at all (in `GET /collections` and `/events`).
    func maySee(_ collection: String, isPublic: Bool, action: AccessAction) -> Bool {
        switch holder {
        case .anonymous(let open): return open || isPublic
        case .admin: return true
        case .key(let key): return isPublic || (key.allows(action) && key.allows(collection: collection))
        case .token(let token, let parent): return token.token.rule(for: collection) != nil && parent.allows(collection: collection)
        }
    }

    /// Whether every change reaches this holder unchanged (no view to compute per change).
    var seesEverything: Bool {
        switch holder {
        case .anonymous(let open): open
        case .admin: true
        case .key(let key): key.allows(.events) && key.allows(collection: "*")
        case .token: false
        }
    }
}
