import Foundation

/// A collection's synonyms, as `PUT /collections/{name}/synonyms` takes them: mutual groups
/// (any member finds the others) and one-way rules (the source finds its targets, not the
/// reverse). Entries may be phrases (`"new york"`). Applied at query time: a change needs no
/// re-index.
public struct SynonymSettings: Sendable, Hashable {
    public var groups: [[String]]
    /// One-way rules, source first, in the order given.
    public var oneWay: [OneWay]

    public struct OneWay: Sendable, Hashable {
        public var source: String
        public var targets: [String]

        public init(source: String, targets: [String]) {
            self.source = source
            self.targets = targets
        }
    }

    public init(groups: [[String]] = [], oneWay: [OneWay] = []) {
        self.groups = groups
        self.oneWay = oneWay
    }

    public var isEmpty: Bool { groups.isEmpty && oneWay.isEmpty }

    /// Reads `{"synonyms": [["nyc", "new york"], ...], "oneWay": {"sneakers": ["trainers"]}}`
    /// (either member may be left out); refuses what `limits` does not allow, naming the field.
    public static func decode(json: [UInt8], limits: TextSettingsLimits = TextSettingsLimits()) throws(TextSettingsError) -> SynonymSettings {
        let object = try TextSettingsJSON.object(json, members: ["synonyms", "oneWay"])
        var settings = SynonymSettings()
        if let value = object["synonyms"], !(value is NSNull) {
            guard let groups = value as? [Any] else { throw TextSettingsError(field: "synonyms", "must be an array of arrays of strings.") }
            for (g, group) in groups.enumerated() {
                let field = "synonyms[\(g)]"
                guard let entries = group as? [Any] else { throw TextSettingsError(field: field, "must be an array of strings.") }
                guard entries.count >= 2 else { throw TextSettingsError(field: field, "a group needs at least 2 entries.") }
                guard entries.count <= limits.maxWordsPerGroup else {
                    throw TextSettingsError(field: field, "has \(entries.count) entries; at most \(limits.maxWordsPerGroup) (collections.maxSynonymWords).")
                }
                settings.groups.append(try entries.enumerated().map { e, entry throws(TextSettingsError) in
                    try TextSettingsJSON.phrase(entry, field: "\(field)[\(e)]", limits: limits)
                })
            }
        }
        if let value = object["oneWay"], !(value is NSNull) {
            guard let rules = value as? [String: Any] else {
                throw TextSettingsError(field: "oneWay", "must be an object of a source to an array of strings.")
            }
            // JSON objects have no order: sources are kept sorted, so the stored form is stable.
            for source in rules.keys.sorted() {
                let field = "oneWay.\(source.prefix(64))"
                let checked = try TextSettingsJSON.phrase(source, field: field, limits: limits)
                guard let targets = rules[source] as? [Any], !targets.isEmpty else {
                    throw TextSettingsError(field: field, "must be a non-empty array of strings.")
                }
                guard targets.count + 1 <= limits.maxWordsPerGroup else {
                    throw TextSettingsError(field: field, "has \(targets.count) targets; at most \(limits.maxWordsPerGroup - 1) (collections.maxSynonymWords).")
                }
                let checkedTargets = try targets.enumerated().map { t, target throws(TextSettingsError) in
                    try TextSettingsJSON.phrase(target, field: "\(field)[\(t)]", limits: limits)
                }
                settings.oneWay.append(OneWay(source: checked, targets: checkedTargets))
            }
        }
        let count = settings.groups.count + settings.oneWay.count
        guard count <= limits.maxGroups else {
            throw TextSettingsError(field: "synonyms", "\(count) groups and one-way rules; at most \(limits.maxGroups) (collections.maxSynonymGroups).")
        }
        return settings
    }

    /// `{"synonyms": [...], "oneWay": {...}}`, as `GET` gives it back.
    public func encodedJSON() -> [UInt8] {
        var json = "{\"synonyms\":["
        json += groups.map { "[" + $0.map(TextSettingsJSON.quoted).joined(separator: ",") + "]" }.joined(separator: ",")
        json += "],\"oneWay\":{"
        json += oneWay.map { TextSettingsJSON.quoted($0.source) + ":[" + $0.targets.map(TextSettingsJSON.quoted).joined(separator: ",") + "]" }
            .joined(separator: ",")
        json += "}}"
        return Array(json.utf8)
    }
}
