import Foundation

/// Distances on the earth and the cell codes of `GeoColumn`.
enum GeoMath {
    /// Mean earth radius (IUGG), meters.
    static let earthRadius = 6_371_008.8

    /// Great-circle distance in meters (haversine).
    static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        distance(a.latitude, a.longitude, b.latitude, b.longitude)
    }

    @inline(__always)
    static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (latitude2 - latitude1) * radians, dLongitude = (longitude2 - longitude1) * radians
        let s = sin(dLatitude / 2), t = sin(dLongitude / 2)
        let h = s * s + cos(latitude1 * radians) * cos(latitude2 * radians) * t * t
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// A latitude/longitude rectangle that does not cross the antimeridian (`west <= east`).
    struct Rectangle: Sendable, Hashable {
        var south: Double, north: Double, west: Double, east: Double

        @inline(__always) func contains(_ latitude: Double, _ longitude: Double) -> Bool {
            latitude >= south && latitude <= north && longitude >= west && longitude <= east
        }
    }

    /// Rectangles covering the circle of `meters` around `center` (two when it crosses the
    /// antimeridian; the whole longitude band when it holds a pole).
    static func rectangles(around center: GeoPoint, meters: Double) -> [Rectangle] {
        let angle = meters / earthRadius
        let degrees = angle * 180 / .pi
        let south = center.latitude - degrees, north = center.latitude + degrees
        if south <= -90 || north >= 90 || angle >= .pi / 2 {
            return [Rectangle(south: max(south, -90), north: min(north, 90), west: -180, east: 180)]
        }
        // The widest longitude the circle reaches (not at the center's latitude).
        let ratio = sin(angle) / cos(center.latitude * .pi / 180)
        guard ratio < 1 else { return [Rectangle(south: south, north: north, west: -180, east: 180)] }
        let spread = asin(ratio) * 180 / .pi
        return band(south: south, north: north, west: center.longitude - spread, east: center.longitude + spread)
    }

    /// Rectangles of a bounding box given by its top-left and bottom-right corners; a box whose
    /// left longitude is greater than its right one crosses the antimeridian (two rectangles).
    static func rectangles(topLeft: GeoPoint, bottomRight: GeoPoint) -> [Rectangle] {
        let south = bottomRight.latitude, north = topLeft.latitude
        guard south <= north else { return [] }
        if topLeft.longitude <= bottomRight.longitude {
            return [Rectangle(south: south, north: north, west: topLeft.longitude, east: bottomRight.longitude)]
        }
        return [
            Rectangle(south: south, north: north, west: topLeft.longitude, east: 180),
            Rectangle(south: south, north: north, west: -180, east: bottomRight.longitude),
        ]
    }

    /// `west...east` may leave -180...180: split at the antimeridian.
    private static func band(south: Double, north: Double, west: Double, east: Double) -> [Rectangle] {
        if west < -180 {
            return [Rectangle(south: south, north: north, west: west + 360, east: 180), Rectangle(south: south, north: north, west: -180, east: east)]
        }
        if east > 180 {
            return [Rectangle(south: south, north: north, west: west, east: 180), Rectangle(south: south, north: north, west: -180, east: east - 360)]
        }
        return [Rectangle(south: south, north: north, west: west, east: east)]
    }

    // MARK: Cells

    /// A coordinate quantized to 16 bits.
    @inline(__always) static func quantize(latitude: Double) -> UInt32 {
        UInt32(min(65_535, max(0, ((latitude + 90) / 180 * 65_536).rounded(.down))))
    }

    @inline(__always) static func quantize(longitude: Double) -> UInt32 {
        UInt32(min(65_535, max(0, ((longitude + 180) / 360 * 65_536).rounded(.down))))
    }

    /// The Z-order (Morton) code of a quantized point: the bits of x and y interleaved, so an
    /// aligned square of side 2^k is one contiguous range of codes.
    @inline(__always) static func cell(x: UInt32, y: UInt32) -> UInt32 {
        spread(x) | spread(y) << 1
    }

    @inline(__always) private static func spread(_ value: UInt32) -> UInt32 {
        var v = value & 0xFFFF
        v = (v | v << 8) & 0x00FF_00FF
        v = (v | v << 4) & 0x0F0F_0F0F
        v = (v | v << 2) & 0x3333_3333
        v = (v | v << 1) & 0x5555_5555
        return v
    }

    /// Ranges of cell codes whose squares cover `rectangle`: aligned squares of the smallest
    /// power-of-two side that needs at most about 64 of them.
    static func cellRanges(covering rectangle: Rectangle) -> [Range<UInt64>] {
        let x0 = quantize(longitude: rectangle.west), x1 = quantize(longitude: rectangle.east)
        let y0 = quantize(latitude: rectangle.south), y1 = quantize(latitude: rectangle.north)
        let width = Int(x1 - x0) + 1, height = Int(y1 - y0) + 1
        var side = 1
        while (width / side + 2) * (height / side + 2) > 64 { side *= 2 }
        var ranges: [Range<UInt64>] = []
        for cy in Int(y0) / side...Int(y1) / side {
            for cx in Int(x0) / side...Int(x1) / side {
                let start = UInt64(cell(x: UInt32(cx * side), y: UInt32(cy * side)))
                ranges.append(start..<start + UInt64(side) * UInt64(side))
            }
        }
        return ranges
    }
}
