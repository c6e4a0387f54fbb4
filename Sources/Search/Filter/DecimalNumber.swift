/// The numbers a filter, a sort or a CSV cell may write: decimal only, `[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?`,
/// and finite. `Double(String)` alone would also take `inf`, `nan` and hexadecimal (`0x1p4`),
/// which no user means as a price.
enum DecimalNumber {
    /// Longest text read as a number; longer is not a number (bounds the work on hostile input).
    static let maxLength = 64

    enum Failure: Error, Equatable {
        /// Not decimal number syntax.
        case syntax
        /// Decimal syntax, but too large for a `Double` (`1e999`).
        case notFinite
    }

    static func parse(_ text: some StringProtocol) -> Result<Double, Failure> {
        let utf8 = text.utf8
        guard utf8.count <= maxLength, isDecimal(utf8) else { return .failure(.syntax) }
        guard let value = Double(String(text)) else { return .failure(.syntax) }
        return value.isFinite ? .success(value) : .failure(.notFinite)
    }

    /// The finite value of `text`, or nil.
    static func finite(_ text: some StringProtocol) -> Double? {
        if case .success(let value) = parse(text) { return value }
        return nil
    }

    /// Whether `bytes` is decimal number syntax (see the type's comment).
    static func isDecimal(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func skipDigits() -> Int {
            var count = 0
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                count += 1
                bytes.formIndex(after: &index)
            }
            return count
        }
        if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes.formIndex(after: &index) }
        var digits = skipDigits()
        if peek() == UInt8(ascii: ".") {
            bytes.formIndex(after: &index)
            digits += skipDigits()
        }
        guard digits > 0 else { return false }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes.formIndex(after: &index)
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes.formIndex(after: &index) }
            guard skipDigits() > 0 else { return false }
        }
        return index == bytes.endIndex
    }
}
