import HTTPTypes

extension RequestParser {
    /// Field names browsers and clients send most, matched without creating a String.
    /// (Host, Content-Length, Transfer-Encoding, Connection and Expect are matched by
    /// ``PendingHead/addField(_:)`` itself, since they steer parsing.)
    static func commonFieldName(_ name: UnsafeRawBufferPointer) -> HTTPField.Name? {
        switch name.count {
        case 5 where name.equalsLowercase("range"): .range
        case 6 where name.equalsLowercase("accept"): .accept
        case 6 where name.equalsLowercase("cookie"): .cookie
        case 6 where name.equalsLowercase("origin"): .origin
        case 7 where name.equalsLowercase("referer"): .referer
        case 7 where name.equalsLowercase("upgrade"): .upgrade
        case 10 where name.equalsLowercase("user-agent"): .userAgent
        case 12 where name.equalsLowercase("content-type"): .contentType
        case 13 where name.equalsLowercase("authorization"): .authorization
        case 13 where name.equalsLowercase("cache-control"): .cacheControl
        case 13 where name.equalsLowercase("if-none-match"): .ifNoneMatch
        case 15 where name.equalsLowercase("accept-encoding"): .acceptEncoding
        case 15 where name.equalsLowercase("accept-language"): .acceptLanguage
        case 16 where name.equalsLowercase("content-encoding"): .contentEncoding
        case 17 where name.equalsLowercase("if-modified-since"): .ifModifiedSince
        default: nil
        }
    }
}
