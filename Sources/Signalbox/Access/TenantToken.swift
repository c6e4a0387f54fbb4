import Crypto
import Foundation

/// A tenant token (Meilisearch's): a JWT signed with HS256 by the secret of a stored key, whose
/// `searchRules` name the collections it may read and, for each, a filter every search, document
/// read and change stream it makes is limited to.
///
/// Verified with swift-crypto's HMAC (constant-time check); the claims are read with Foundation.
struct TenantToken: Sendable {
    /// The key whose secret signed it; the token may do what that key's actions allow.
    let apiKeyID: String
    /// Collection name (or `*`) → the filter text, nil for the whole collection.
    let rules: [String: String?]
    /// `exp`, when the token has one.
    let expiresAt: Date?

    /// Why a token is refused (401).
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Whether `token` looks like a JWT (three base64url parts), before any check.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.utf8.count > 10 && token.utf8.filter { $0 == UInt8(ascii: ".") }.count == 2
    }

    /// Reads the claims of `token` and checks its signature with the secret of the key it names
    /// (`secret(apiKeyID)`, nil when no such key is usable). Expiry is checked by the caller on every use.
    static func verify(_ token: String, secret: (String) -> String?) throws(Invalid) -> TenantToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw Invalid(description: "The token is not a JWT.") }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any], header["alg"] as? String == "HS256"
        else { throw Invalid(description: "The token must be signed with HS256.") }
        guard let claims = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any] else {
            throw Invalid(description: "The token's claims are not a JSON object.")
        }
        guard let apiKeyID = claims["apiKeyId"] as? String, let secret = secret(apiKeyID) else {
            throw Invalid(description: "The token's apiKeyId names no usable key.")
        }
        let signed = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: SymmetricKey(data: Data(secret.utf8)))
        else { throw Invalid(description: "The token's signature is not valid.") }
        var expiresAt: Date?
        if let exp = claims["exp"] {
            guard let seconds = (exp as? NSNumber)?.doubleValue else {
                throw Invalid(description: "The token's exp is not a number of seconds.")
            }
            expiresAt = Date(timeIntervalSince1970: seconds)
        }
        return TenantToken(apiKeyID: apiKeyID, rules: try rules(claims["searchRules"]), expiresAt: expiresAt)
    }

    /// `{"products": {"filter": "tenant = 42"}}`, `{"products": null}` or `["products"]`.
    private static func rules(_ value: Any?) throws(Invalid) -> [String: String?] {
        if let names = value as? [String] {
            return Dictionary(names.map { ($0, String?.none) }, uniquingKeysWith: { first, _ in first })
        }
        guard let object = value as? [String: Any] else {
            throw Invalid(description: "The token's searchRules must be an object of collections (or a list of names).")
        }
        var rules: [String: String?] = [:]
        for (collection, rule) in object {
            if rule is NSNull {
                rules[collection] = .some(nil)
            } else if let rule = rule as? [String: Any] {
                guard let filter = rule["filter"] else {
                    rules[collection] = .some(nil)
                    continue
                }
                guard let text = filter as? String else {
                    throw Invalid(description: "The token's filter for \(collection.prefix(64)) must be a string.")
                }
                rules[collection] = text
            } else {
                throw Invalid(description: "The token's rule for \(collection.prefix(64)) must be an object or null.")
            }
        }
        return rules
    }

    /// The rule for `collection` (its own, else `*`'s); `.none` when the token may not touch it.
    func rule(for collection: String) -> String?? {
        rules[collection] ?? rules["*"]
    }

    func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }
}
