import Base
import Foundation
import Search

/// A verified tenant token with its rules' filters, each compiled once for the schema it was
/// compiled against (again only if the collection's schema changes).
final class VerifiedToken: Sendable {
    /// A rule's filter, ready for the index (`filter`) and for one document at a time (`matcher`).
    struct Compiled: Sendable {
        let schema: CollectionSchema
        /// Nil: the rule takes the whole collection.
        let filter: FilterExpression?
        let matcher: CollectionQueryMatcher?

        /// Whether `document` is inside the rule.
        func admits(_ document: CollectionDocument?) -> Bool {
            admits(document.map { CollectionMatchCandidate($0, schema: schema) })
        }

        /// Whether a document prepared once for many rules is inside this one.
        func admits(_ candidate: CollectionMatchCandidate?) -> Bool {
            guard let candidate else { return false }
            guard let matcher else { return true }
            return matcher.matches(candidate)
        }
    }

    let token: TenantToken
    /// Tells verified tokens apart for the life of the process (a cache key that, unlike an
    /// object's address, is never reused).
    let serial: Int
    private let compiled = Locked<[String: Compiled]>([:])
    private static let serials = Locked(0)

    init(_ token: TenantToken) {
        self.token = token
        serial = Self.serials.withLock { serial in
            serial += 1
            return serial
        }
    }

    /// Why a token may not read a collection (the edge answers 403).
    struct NoRule: Error, CustomStringConvertible {
        let description: String
    }

    /// The rule's filter for `collection` under `schema`; ``NoRule`` when the token has no rule
    /// there or its filter does not fit the schema.
    func compiled(for collection: String, schema: CollectionSchema) throws(NoRule) -> Compiled {
        if let found = compiled.withLock({ $0[collection] }), found.schema == schema { return found }
        guard let rule = token.rule(for: collection) else {
            throw NoRule(description: "This tenant token has no search rule for \(collection.prefix(64)).")
        }
        var filter: FilterExpression?
        if let text = rule {
            do {
                filter = try FilterParser(schema: schema).parse(text)
            } catch {
                throw NoRule(description: "This tenant token's filter for \(collection.prefix(64)) does not fit the collection: \(error)")
            }
        }
        let made = Compiled(
            schema: schema, filter: filter,
            matcher: filter.map { CollectionQueryMatcher(CollectionQuery(filter: $0), schema: schema) })
        compiled.withLock { $0[collection] = made }
        return made
    }
}

/// Verified tenant tokens by their text: a token's signature is checked and its filters
/// compiled once, not on every request. Expiry and the parent key are checked on every use.
final class TenantTokenCache: Sendable {
    /// Tokens kept; the cache starts over beyond (a full re-verification costs one HMAC).
    static let maxEntries = 10_000

    private let tokens = Locked<[String: VerifiedToken]>([:])

    func token(_ text: String, verify: () throws(TenantToken.Invalid) -> TenantToken) throws(TenantToken.Invalid) -> VerifiedToken {
        if let found = tokens.withLock({ $0[text] }) { return found }
        let verified = VerifiedToken(try verify())
        tokens.withLock { tokens in
            if tokens.count >= Self.maxEntries { tokens.removeAll(keepingCapacity: true) }
            tokens[text] = verified
        }
        return verified
    }
}
