/// A parsed, type-checked `filter` of a collection search (Meilisearch's grammar):
/// `f = v`, `f != v`, `f > v`, `f >= v`, `f < v`, `f <= v`, `f IN [v1, v2]`, `f v1 TO v2`,
/// `f EXISTS`, `NOT x`, `x AND y`, `x OR y`, parentheses, `_geoRadius(lat, lng, meters)`,
/// `_geoBoundingBox([lat1, lng1], [lat2, lng2])`.
///
/// Values are already converted to the type of the field they are compared with: a string
/// value is case-folded (string `=` is exact after case folding), a number is finite. A
/// `string[]` field matches when any of its elements does.
public indirect enum FilterExpression: Sendable, Hashable {
    case compare(field: String, FilterComparison, FilterValue)
    /// `f IN [v1, v2, ...]`: equal to any of the values.
    case oneOf(field: String, [FilterValue])
    /// `f v1 TO v2`: within `v1...v2`, both ends included.
    case between(field: String, FilterValue, FilterValue)
    /// `f EXISTS`: the document has a value for the field.
    case exists(field: String)
    /// `_geoRadius(lat, lng, meters)`: the collection's geo field within `meters` of `center` (haversine).
    case geoRadius(center: GeoPoint, meters: Double)
    /// `_geoBoundingBox([lat1, lng1], [lat2, lng2])`: top-left corner, then bottom-right
    /// (a box whose left longitude is greater than its right one crosses the antimeridian).
    case geoBoundingBox(topLeft: GeoPoint, bottomRight: GeoPoint)
    case not(FilterExpression)
    case and([FilterExpression])
    case or([FilterExpression])
}

public enum FilterComparison: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "!="
    case greater = ">"
    case greaterOrEqual = ">="
    case less = "<"
    case lessOrEqual = "<="
}

/// A filter value, typed by the field it is compared with.
public enum FilterValue: Sendable, Hashable {
    /// Case-folded text, for `string` and `string[]` fields.
    case string(String)
    case number(Double)
    case boolean(Bool)
}

/// One key of a `sort`: `field:asc|desc` or `_geoPoint(lat, lng):asc|desc`.
public enum SortKey: Sendable, Hashable {
    case field(String, descending: Bool)
    case distance(from: GeoPoint, descending: Bool)
}
