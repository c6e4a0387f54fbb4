/// What the engine derives once from a `CollectionSchema`: field positions by role.
struct SchemaLayout: Sendable {
    /// Searched fields weigh by their order among searched fields; later ones than this weigh
    /// like the last (the ranking key holds the sum of eight words' weights in 8 bits).
    static let maxFieldWeight: UInt32 = 31

    let schema: CollectionSchema
    /// Searched fields (`string` or `string[]` with `search`): field index and weight (0 = heaviest).
    let searched: [(field: Int, weight: UInt32)]
    /// The `rank` field's index when it names a declared number field.
    let rankField: Int?
    /// The first geo field: the one `_geoRadius`, `_geoBoundingBox` and `_geoPoint` use.
    let geoField: Int?

    init(_ schema: CollectionSchema) {
        self.schema = schema
        var searched: [(field: Int, weight: UInt32)] = []
        for (index, field) in schema.fields.enumerated()
        where field.search && (field.type == .string || field.type == .stringArray) {
            searched.append((index, min(UInt32(searched.count), Self.maxFieldWeight)))
        }
        self.searched = searched
        rankField = schema.rank.flatMap { name in schema.fields.firstIndex { $0.name == name && $0.type == .number } }
        geoField = schema.fields.firstIndex { $0.type == .geo }
    }

    func fieldIndex(named name: String) -> Int? {
        schema.fields.firstIndex { $0.name == name }
    }

    /// The weight of field `index` if it is searched.
    func weight(ofField index: Int) -> UInt32? {
        searched.first { $0.field == index }?.weight
    }
}
