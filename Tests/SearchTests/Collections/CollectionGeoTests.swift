import Foundation
import Testing

@testable import Search

@Suite struct CollectionGeoTests {
    private typealias F = CollectionFixtures

    /// Great-circle distance by another formula than the engine's (spherical law of cosines
    /// through atan2 of the vector form), same radius.
    static func independentDistance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let r = Double.pi / 180
        let (p1, l1, p2, l2) = (a.0 * r, a.1 * r, b.0 * r, b.1 * r)
        let x = cos(p2) * sin(l2 - l1)
        let y = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(l2 - l1)
        let z = sin(p1) * sin(p2) + cos(p1) * cos(p2) * cos(l2 - l1)
        return 6_371_008.8 * atan2((x * x + y * y).squareRoot(), z)
    }

    /// The point `meters` from `origin` on `bearing` degrees.
    static func destination(_ origin: (Double, Double), meters: Double, bearing: Double) -> (Double, Double) {
        let r = Double.pi / 180, d = meters / 6_371_008.8, b = bearing * r
        let p1 = origin.0 * r, l1 = origin.1 * r
        let p2 = asin(sin(p1) * cos(d) + cos(p1) * sin(d) * cos(b))
        var l2 = l1 + atan2(sin(b) * sin(d) * cos(p1), cos(d) - sin(p1) * sin(p2))
        l2 = (l2 / r + 540).truncatingRemainder(dividingBy: 360) - 180
        return (p2 / r, l2)
    }

    private struct Generator {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    @Test func radiusAtItsEdgeAgreesWithAnIndependentHaversine() {
        let centers = [(48.8566, 2.3522), (-17.3, 179.9), (89.9, 10), (0, -180), (-60, 45)]
        for center in centers {
            for meters in [1_000.0, 50_000, 1_000_000] {
                var documents: [CollectionDocument] = []
                for bearing in stride(from: 0.0, to: 360, by: 15) {
                    let inside = Self.destination(center, meters: meters - 1, bearing: bearing)
                    let outside = Self.destination(center, meters: meters + 1, bearing: bearing)
                    documents.append(F.product("in-\(bearing)", title: "P", store: inside))
                    documents.append(F.product("out-\(bearing)", title: "P", store: outside))
                }
                let index = CollectionIndex(schema: F.products, documents: documents)
                let filter = FilterExpression.geoRadius(center: GeoPoint(latitude: center.0, longitude: center.1), meters: meters)
                let found = Set(index.search(CollectionQuery(filter: filter, limit: 1_000)).hits.map(\.id))
                let expected = Set(documents.filter { document in
                    guard case .geo(let p)? = document.values[6] else { return false }
                    return Self.independentDistance(center, (p.latitude, p.longitude)) <= meters
                }.map(\.id))
                #expect(found == expected, "center \(center) radius \(meters)")
                #expect(expected.count == 24, "center \(center) radius \(meters): the reference puts every inside point inside")
                let byText = Set(index.search(CollectionQuery(text: "p", filter: filter, limit: 1_000)).hits.map(\.id))
                #expect(byText == expected)
            }
        }
    }

    @Test func randomPointsAgreeWithBruteForce() {
        var random = Generator(state: 42)
        let points = (0..<CollectionQuery.Limits.maxLimit).map { _ in (random.next() * 180 - 90, random.next() * 360 - 180) }
        let documents = points.enumerated().map { F.product("\($0.offset)", title: "P", store: $0.element) }
        let index = CollectionIndex(schema: F.products, documents: documents)
        for _ in 0..<40 {
            let center = (random.next() * 180 - 90, random.next() * 360 - 180)
            let meters = pow(10, 3 + random.next() * 4)  // 1 km to 10,000 km
            let found = Set(index.search(CollectionQuery(filter: .geoRadius(center: GeoPoint(latitude: center.0, longitude: center.1), meters: meters), limit: 1_000)).hits.map(\.id))
            for (i, point) in points.enumerated() {
                let distance = Self.independentDistance(center, point)
                if abs(distance - meters) < 1e-6 * meters { continue }  // too close to call between two formulas
                #expect(found.contains("\(i)") == (distance <= meters), "point \(point) center \(center) radius \(meters)")
            }
            // A box, sometimes across the antimeridian.
            let west = random.next() * 360 - 180, east = random.next() * 360 - 180
            let south = random.next() * 180 - 90, north = min(90, south + random.next() * 60)
            let box = FilterExpression.geoBoundingBox(topLeft: GeoPoint(latitude: north, longitude: west), bottomRight: GeoPoint(latitude: south, longitude: east))
            let inBox = Set(index.search(CollectionQuery(filter: box, limit: 1_000)).hits.map(\.id))
            let expected = Set(points.indices.filter { i in
                let (lat, lng) = points[i]
                let inLongitude = west <= east ? (lng >= west && lng <= east) : (lng >= west || lng <= east)
                return lat >= south && lat <= north && inLongitude
            }.map { "\($0)" })
            #expect(inBox == expected)
        }
    }

    /// Haversine written out here (the test's own), same mean radius as the engine.
    static func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let r = Double.pi / 180
        let dLat = (b.0 - a.0) * r, dLng = (b.1 - a.1) * r
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * r) * cos(b.0 * r) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    @Test func nearestFirstAcrossTheAntimeridianWithHaversineDistances() throws {
        var random = Generator(state: 7)
        // Points within about 600 km of a center 0.2° west of the antimeridian, on both sides of it.
        let center = (-16.5, 179.8)
        let points = (0..<300).map { _ in (center.0 + random.next() * 10 - 5, (center.1 + random.next() * 10 - 5 + 540).truncatingRemainder(dividingBy: 360) - 180) }
        let documents = points.enumerated().map { F.product("\($0.offset)", title: "P", store: $0.element) }
        let index = CollectionIndex(schema: F.products, documents: documents)
        let point = GeoPoint(latitude: center.0, longitude: center.1)
        let byDistance = points.indices.sorted { Self.haversine(center, points[$0]) < Self.haversine(center, points[$1]) }
        let result = index.search(CollectionQuery(sort: [.distance(from: point, descending: false)], limit: 50))
        #expect(result.hits.map(\.id) == byDistance.prefix(50).map { "\($0)" })
        for hit in result.hits {
            let expected = Self.haversine(center, points[Int(hit.id)!])
            let distance = try #require(hit.distance)
            #expect(abs(distance - expected) <= 1e-6 * max(1, expected), "\(hit.id): \(distance) != \(expected)")
        }
        #expect(result.hits.contains { points[Int($0.id)!].1 < 0 } && result.hits.contains { points[Int($0.id)!].1 > 0 })
        // A radius reaching across: every point within it by haversine, with its distance.
        let radius = 300_000.0
        let within = index.search(CollectionQuery(filter: .geoRadius(center: point, meters: radius), limit: 1_000))
        let expected = Set(points.indices.filter { Self.haversine(center, points[$0]) <= radius }.map { "\($0)" })
        #expect(Set(within.hits.map(\.id)) == expected && within.total == expected.count)
        #expect(within.hits.allSatisfy { ($0.distance ?? .infinity) <= radius })
    }

    @Test func boundingBoxAcrossTheAntimeridian() {
        let index = CollectionIndex(schema: F.products, documents: CollectionFilterTests.documents)
        let box = FilterExpression.geoBoundingBox(topLeft: GeoPoint(latitude: 0, longitude: 170), bottomRight: GeoPoint(latitude: -30, longitude: -170))
        #expect(index.search(CollectionQuery(filter: box)).hits.map(\.id).sorted() == ["4", "5"])
        let europe = FilterExpression.geoBoundingBox(topLeft: GeoPoint(latitude: 60, longitude: -10), bottomRight: GeoPoint(latitude: 40, longitude: 10))
        #expect(index.search(CollectionQuery(filter: europe)).hits.map(\.id).sorted() == ["1", "2"])
        // Top below bottom: an empty box.
        let upsideDown = FilterExpression.geoBoundingBox(topLeft: GeoPoint(latitude: 40, longitude: -10), bottomRight: GeoPoint(latitude: 60, longitude: 10))
        #expect(index.search(CollectionQuery(filter: upsideDown)).total == 0)
    }

    @Test func sortByDistanceGivesDistancesAndMissingLast() throws {
        let index = CollectionIndex(schema: F.products, documents: CollectionFilterTests.documents)
        let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)
        let result = index.search(CollectionQuery(sort: [.distance(from: paris, descending: false)]))
        let byDistance = CollectionFilterTests.documents.compactMap { document -> (String, Double)? in
            guard case .geo(let p)? = document.values[6] else { return nil }
            return (document.id, Self.independentDistance((paris.latitude, paris.longitude), (p.latitude, p.longitude)))
        }.sorted { $0.1 < $1.1 }.map(\.0)
        #expect(result.hits.map(\.id) == byDistance + ["3"])
        let london = try #require(result.hits[1].distance)
        #expect(abs(london - Self.independentDistance((48.8566, 2.3522), (51.5074, -0.1278))) < 1e-6 * london)
        #expect(result.hits[0].distance == 0)
        #expect(result.hits[4].distance == nil)
        let far = index.search(CollectionQuery(sort: [.distance(from: paris, descending: true)]))
        #expect(far.hits.map(\.id) == byDistance.reversed() + ["3"])
        // A radius filter's center gives the distance when the sort names no point.
        let near = index.search(CollectionQuery(filter: .geoRadius(center: paris, meters: 400_000)))
        #expect(near.hits.map(\.id) == ["2", "1"])  // by rank (price)
        #expect(near.hits.map { $0.distance.map { $0 < 400_000 } } == [true, true])
        #expect(index.search(CollectionQuery()).hits.allSatisfy { $0.distance == nil })
    }

    @Test func noGeoFieldMatchesNothing() {
        let schema = CollectionSchema(fields: [FieldSchema(name: "name", type: .string, search: true)])
        let index = CollectionIndex(schema: schema, documents: [try! CollectionDocument.decode(json: Array(#"{"id": "1", "name": "x"}"#.utf8), schema: schema)])
        #expect(index.search(CollectionQuery(filter: .geoRadius(center: GeoPoint(latitude: 0, longitude: 0), meters: 1e7))).total == 0)
        #expect(index.search(CollectionQuery(sort: [.distance(from: GeoPoint(latitude: 0, longitude: 0), descending: false)])).total == 1)
    }
}
