import Crypto
import Foundation

/// Signs tenant tokens as a backend would (HS256 over `header.claims`, base64url without padding).
enum TenantTokenSigner {
    static func sign(_ claims: [String: Any], secret: String, algorithm: String = "HS256") throws -> String {
        func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = encode(try JSONSerialization.data(withJSONObject: ["alg": algorithm, "typ": "JWT"]))
        let payload = encode(try JSONSerialization.data(withJSONObject: claims))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "\(header).\(payload).\(encode(Data(mac)))"
    }
}
