/// ISO 3166-1 alpha-2 codes as small integers for the country filter.
enum CountryCode {
    static let none: UInt16 = 0xFFFF
    static let count = 26 * 26

    static func index(of code: String?) -> UInt16 {
        guard let code else { return none }
        let bytes = Array(code.utf8)
        guard bytes.count == 2 else { return none }
        let a = Int(bytes[0]) - 65, b = Int(bytes[1]) - 65
        guard (0..<26).contains(a), (0..<26).contains(b) else { return none }
        return UInt16(a * 26 + b)
    }
}
