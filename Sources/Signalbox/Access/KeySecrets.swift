import Crypto
import Foundation

/// Derives each stored key's secret from the master secret (`keys.masterSecret`) and the key's
/// id with HMAC-SHA256, as Meilisearch derives its keys from its master key: the store keeps
/// no secret, yet every replica with the same master secret checks the same keys and tokens.
///
/// A key reads `sbk_<id>_<43 base64url characters>`: the id in it finds the key's record, the
/// rest is compared with the derived value in constant time.
struct KeySecrets: Sendable {
    static let prefix = "sbk_"
    /// Ids are 24 lowercase hex digits (96 random bits).
    static let idLength = 24

    private let master: SymmetricKey

    init(masterSecret: String) {
        master = SymmetricKey(data: Data(masterSecret.utf8))
    }

    /// The full key (what `POST /keys` shows once, and what signs a tenant token).
    func key(id: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("signalbox-key:\(id)".utf8), using: master)
        return Self.prefix + id + "_" + Base64URL.encode(Data(mac))
    }

    /// The id a presented key names, or nil when it does not look like a stored key.
    static func id(of presented: String) -> String? {
        let utf8 = Array(presented.utf8)
        let prefixLength = prefix.utf8.count
        guard utf8.count > prefixLength + idLength + 1, presented.hasPrefix(prefix),
            utf8[prefixLength + idLength] == UInt8(ascii: "_")
        else { return nil }
        let id = String(decoding: utf8[prefixLength..<(prefixLength + idLength)], as: UTF8.self)
        return id.allSatisfy(\.isHexDigit) ? id : nil
    }

    /// Whether `presented` is the key of `id`, compared without an early exit.
    func matches(_ presented: String, id: String) -> Bool {
        ConstantTime.equals(Array(presented.utf8), Array(key(id: id).utf8))
    }

    /// A new random id.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<idLength).map { _ in String(UInt8.random(in: 0..<16, using: &generator), radix: 16) }.joined()
    }
}

/// Compares byte strings in time that depends only on their lengths.
enum ConstantTime {
    static func equals(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}

/// Base64 with the URL alphabet and no padding (RFC 7515), as JWTs use it.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
