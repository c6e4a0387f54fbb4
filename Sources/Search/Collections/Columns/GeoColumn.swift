/// The points of one `geo` field in a segment, and a spatial index over them.
///
/// The index is a *sorted cell order*: each point's Z-order code (16-bit latitude and longitude
/// interleaved) with its document, sorted. A rectangle becomes a few code ranges (aligned
/// squares), each found by binary search, and the candidates get the exact test (haversine for a
/// radius). Chosen over a fixed grid because one sorted array of 8 bytes a point adapts to any
/// density and any radius: a grid's cell size is either too coarse for points packed in one
/// city or too fine (too many cells to visit) for a radius of a thousand kilometers.
final class GeoColumn: Sendable {
    /// Per document, NaN when missing.
    let latitudes: [Double]
    let longitudes: [Double]
    /// `code << 32 | document`, ascending.
    let cells: [UInt64]

    /// A column as persisted, already checked.
    init(latitudes: [Double], longitudes: [Double], cells: [UInt64]) {
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.cells = cells
    }

    init(_ documents: [CollectionDocument], field: Int) {
        var latitudes = [Double](repeating: .nan, count: documents.count)
        var longitudes = [Double](repeating: .nan, count: documents.count)
        var cells: [UInt64] = []
        for (d, document) in documents.enumerated() {
            guard case .geo(let point)? = document.values[field] else { continue }
            latitudes[d] = point.latitude
            longitudes[d] = point.longitude
            let code = GeoMath.cell(x: GeoMath.quantize(longitude: point.longitude), y: GeoMath.quantize(latitude: point.latitude))
            cells.append(UInt64(code) << 32 | UInt64(d))
        }
        cells.sort()
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.cells = cells
    }

    /// Calls `body` with every document whose point may lie in `rectangle` (a superset).
    func forEachCandidate(in rectangle: GeoMath.Rectangle, _ body: (UInt32) -> Void) {
        for range in GeoMath.cellRanges(covering: rectangle) {
            var i = lowerBound(range.lowerBound << 32)
            let end = range.upperBound >= 1 << 32 ? UInt64.max : range.upperBound << 32
            while i < cells.count, cells[i] < end || end == .max {
                body(UInt32(truncatingIfNeeded: cells[i]))
                i += 1
            }
        }
    }

    private func lowerBound(_ key: UInt64) -> Int {
        var lo = 0, hi = cells.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if cells[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Meters from `point` to document `d`, nil when it has no point.
    @inline(__always) func distance(_ d: UInt32, from point: GeoPoint) -> Double? {
        let latitude = latitudes[Int(d)]
        guard !latitude.isNaN else { return nil }
        return GeoMath.distance(point.latitude, point.longitude, latitude, longitudes[Int(d)])
    }
}
