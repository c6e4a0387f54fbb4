import Base

/// Random product documents for the collections' property tests (an index saved and loaded
/// against a fresh build, a service restarted against one that rebuilds): each field present or
/// not, words from a small vocabulary with case and accent variants, so that prefixes, typos,
/// folding, facets, filters and sorts all meet. The same documents from the same seed on every run.
///
/// Itself a generator: a test draws its other choices (which write next) from the same sequence.
public struct RandomProducts: RandomNumberGenerator, Sendable {
    /// How a product's location is written.
    public enum Location: Sendable {
        /// A geo field `store` holding `{"lat": …, "lng": …}`.
        case storeObject
        /// Top-level `lat` and `lon`, for a schema whose geo field is made `from` them.
        case latLon
    }

    public static let words = ["lamp", "chair", "table", "Lampe", "désk", "sofa", "stool", "shelf", "bench", "rug"]
    public static let brands = ["Acme", "acme", "Globex", "Initech", "Umbrella"]

    private var random: SplitMix64
    private let location: Location
    private let descriptions: Bool

    /// `descriptions`: whether products may have a searched `description` (the schema must have one).
    public init(seed: UInt64, location: Location, descriptions: Bool) {
        random = SplitMix64(seed: seed)
        self.location = location
        self.descriptions = descriptions
    }

    public mutating func next() -> UInt64 { random.next() }

    /// A number in `0..<bound`.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A word of the vocabulary.
    public mutating func word() -> String { Self.words[below(Self.words.count)] }

    /// The JSON of product `sku` (its id field is `sku`); every other field is there three times in four.
    public mutating func product(sku: Int) -> String {
        var members = [#""sku": "\#(sku)""#]
        if present() { members.append(#""title": "\#(word()) \#(word())""#) }
        if present() { members.append(#""tags": [\#((0..<below(3)).map { _ in "\"\(word())\"" }.joined(separator: ", "))]"#) }
        if descriptions && present() { members.append(#""description": "a \#(word()) with a \#(word())""#) }
        if present() { members.append(#""brand": "\#(Self.brands[below(Self.brands.count)])""#) }
        if present() { members.append(#""price": \#(below(100))"#) }
        if present() { members.append(#""inStock": \#(below(2) == 0)"#) }
        if present() {
            let (latitude, longitude) = (below(170) - 85, below(350) - 175)
            switch location {
            case .storeObject: members.append(#""store": {"lat": \#(latitude), "lng": \#(longitude)}"#)
            case .latLon: members.append(#""lat": \#(latitude), "lon": \#(longitude)"#)
            }
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    private mutating func present() -> Bool { below(4) != 0 }
}
