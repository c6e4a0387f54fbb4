import CZlib

/// One-shot gzip compression through zlib.
enum Gzip {
    /// The gzip encoding of `bytes`, or nil if zlib fails.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16 asks zlib for a gzip header and trailer.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return nil }
        defer { deflateEnd(&stream) }

        // deflateBound is for zlib framing; gzip's header and trailer add 18 bytes.
        let capacity = Int(deflateBound(&stream, uLong(bytes.count))) + 32
        var output = [UInt8](repeating: 0, count: capacity)
        let result: Int32 = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}

/// Reads an `Accept-Encoding` value (RFC 9110 §12.5.3).
enum AcceptEncoding {
    /// Whether `value` allows gzip: `gzip` (or `x-gzip`) with q > 0, or `*`
    /// with q > 0 when gzip is not named.
    static func allowsGzip(_ value: String) -> Bool {
        // Without a "g" (gzip, x-gzip) or "*" no member can allow it ("identity", "br"): no parse.
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 | 0x20 == UInt8(ascii: "g") }) else { return false }
        var wildcard: Bool?
        for member in value.split(separator: ",") {
            let parts = member.split(separator: ";")
            guard let first = parts.first else { continue }
            let coding = first.trimmingSpaces().lowercased()
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpaces()
                if pair.lowercased().hasPrefix("q=") {
                    quality = Double(pair.dropFirst(2)) ?? 0
                }
            }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { wildcard = quality > 0 }
        }
        return wildcard ?? false
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
