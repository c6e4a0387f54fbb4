/// A collection query compiled once for the question live queries ask on every write: could a
/// change to this document (its old or its new version) alter this query's result?
///
/// The rule is the index's own, on one document: the filter passes and, unless the text is
/// empty, the first word (stop words dropped) matches a token of a searched field (within its
/// typo budget), or the document holds every word of a synonym's phrase for it. A short word
/// (`CollectionWords.isShort`) is given its one typo here whatever the index holds: the index
/// takes it when no document has the word as typed, which a write can change either way.
public struct CollectionQueryMatcher: Sendable {
    private let firstWord: QueryWord?
    /// The phrases a synonym lets stand for the first word.
    private let firstWordSynonyms: [[[UInt16]]]
    private let hasText: Bool
    private let predicate: DocumentPredicate?

    public init(_ query: CollectionQuery, schema: CollectionSchema, rules: QueryRules = .none) {
        let layout = SchemaLayout(schema)
        let plan = rules.plan(CollectionWords.parse(query.text, layout: layout))  // the index's word parsing
        firstWord = plan.words.first.map { word in
            var word = word
            if CollectionWords.isShort(word) { word.typoBudget = 1 }
            return word
        }
        firstWordSynonyms = plan.alternatives.first ?? []
        hasText = !plan.words.isEmpty
        predicate = query.filter.map { DocumentPredicate($0, layout: layout) }
    }

    public func matches(_ candidate: CollectionMatchCandidate) -> Bool {
        if let predicate, !predicate.matches(candidate.values) { return false }
        guard hasText else { return true }
        guard let firstWord else { return false }
        if candidate.tokens.contains(where: { firstWord.match($0[...]) != nil }) { return true }
        return firstWordSynonyms.contains { phrase in phrase.allSatisfy(candidate.tokens.contains) }
    }
}

/// A document prepared once to be tested against many `CollectionQueryMatcher`s: its searched
/// fields tokenized, its strings case-folded.
public struct CollectionMatchCandidate: Sendable {
    let tokens: [[UInt16]]
    /// The document's values, strings folded.
    let values: [FieldValue?]

    public init(_ document: CollectionDocument, schema: CollectionSchema) {
        let layout = SchemaLayout(schema)
        var buffer = TokenBuffer()
        var tokens: [[UInt16]] = []
        for (field, _) in layout.searched {
            let texts: [String]
            switch document.values[field] {
            case .string(let text)?: texts = [text]
            case .strings(let list)?: texts = list
            default: texts = []
            }
            for text in texts {
                Normalizer.scan(text, into: &buffer)
                tokens += buffer.spans.map { Array(buffer.units(of: $0)) }
            }
        }
        self.tokens = tokens
        values = document.values.map { value in
            switch value {
            case .string(let text)?: return .string(StringColumn.fold(text))
            case .strings(let list)?: return .strings(list.map(StringColumn.fold))
            default: return value
            }
        }
    }
}

/// A `FilterExpression` resolved against a schema for one document's values (strings folded),
/// with `SegmentFilter`'s semantics.
indirect enum DocumentPredicate: Sendable {
    case constant(Bool)
    case strings(field: Int, [String])
    case numbers(field: Int, [NumberBounds])
    case boolean(field: Int, Set<Bool>)
    case exists(field: Int)
    case geoRadius(field: Int, center: GeoPoint, meters: Double)
    case geoBox(field: Int, [GeoMath.Rectangle])
    case not(DocumentPredicate)
    case and([DocumentPredicate])
    case or([DocumentPredicate])

    init(_ expression: FilterExpression, layout: SchemaLayout) {
        func equal(_ name: String, _ values: [FilterValue]) -> DocumentPredicate {
            guard let field = layout.fieldIndex(named: name) else { return .constant(false) }
            switch layout.schema.fields[field].type {
            case .string, .stringArray:
                let strings = values.compactMap { value -> String? in
                    if case .string(let text) = value { return StringColumn.fold(text) }
                    return nil
                }
                return .strings(field: field, strings)
            case .number:
                return .numbers(field: field, values.compactMap { value -> NumberBounds? in
                    guard case .number(let n) = value else { return nil }
                    return NumberBounds(lower: n, lowerInclusive: true, upper: n, upperInclusive: true)
                })
            case .boolean:
                return .boolean(field: field, Set(values.compactMap { value -> Bool? in
                    if case .boolean(let flag) = value { return flag }
                    return nil
                }))
            case .geo: return .constant(false)
            }
        }
        func numberField(_ name: String) -> Int? {
            layout.fieldIndex(named: name).flatMap { layout.schema.fields[$0].type == .number ? $0 : nil }
        }
        switch expression {
        case .compare(let name, let comparison, let value):
            switch comparison {
            case .equal: self = equal(name, [value])
            case .notEqual: self = .not(equal(name, [value]))
            case .greater, .greaterOrEqual, .less, .lessOrEqual:
                guard let field = numberField(name), case .number(let n) = value else {
                    self = .constant(false)
                    return
                }
                switch comparison {
                case .greater: self = .numbers(field: field, [NumberBounds(lower: n, lowerInclusive: false, upper: .infinity, upperInclusive: true)])
                case .greaterOrEqual: self = .numbers(field: field, [NumberBounds(lower: n, lowerInclusive: true, upper: .infinity, upperInclusive: true)])
                case .less: self = .numbers(field: field, [NumberBounds(lower: -.infinity, lowerInclusive: true, upper: n, upperInclusive: false)])
                default: self = .numbers(field: field, [NumberBounds(lower: -.infinity, lowerInclusive: true, upper: n, upperInclusive: true)])
                }
            }
        case .oneOf(let name, let values): self = equal(name, values)
        case .between(let name, let low, let high):
            guard let field = numberField(name), case .number(let lower) = low, case .number(let upper) = high else {
                self = .constant(false)
                return
            }
            self = .numbers(field: field, [NumberBounds(lower: lower, lowerInclusive: true, upper: upper, upperInclusive: true)])
        case .exists(let name):
            self = layout.fieldIndex(named: name).map { .exists(field: $0) } ?? .constant(false)
        case .geoRadius(let center, let meters):
            self = layout.geoField.map { .geoRadius(field: $0, center: center, meters: meters) } ?? .constant(false)
        case .geoBoundingBox(let topLeft, let bottomRight):
            self = layout.geoField.map { .geoBox(field: $0, GeoMath.rectangles(topLeft: topLeft, bottomRight: bottomRight)) } ?? .constant(false)
        case .not(let inner): self = .not(DocumentPredicate(inner, layout: layout))
        case .and(let parts): self = .and(parts.map { DocumentPredicate($0, layout: layout) })
        case .or(let parts): self = .or(parts.map { DocumentPredicate($0, layout: layout) })
        }
    }

    func matches(_ values: [FieldValue?]) -> Bool {
        switch self {
        case .constant(let value): return value
        case .strings(let field, let targets):
            switch values[field] {
            case .string(let text)?: return targets.contains(text)
            case .strings(let list)?: return list.contains { targets.contains($0) }
            default: return false
            }
        case .numbers(let field, let bounds):
            guard case .number(let n)? = values[field] else { return false }
            return bounds.contains { $0.contains(n) }
        case .boolean(let field, let flags):
            guard case .boolean(let flag)? = values[field] else { return false }
            return flags.contains(flag)
        case .exists(let field): return values[field] != nil
        case .geoRadius(let field, let center, let meters):
            guard case .geo(let point)? = values[field], meters >= 0 else { return false }
            return GeoMath.distance(center, point) <= meters
        case .geoBox(let field, let rectangles):
            guard case .geo(let point)? = values[field] else { return false }
            return rectangles.contains { $0.contains(point.latitude, point.longitude) }
        case .not(let inner): return !inner.matches(values)
        case .and(let parts): return parts.allSatisfy { $0.matches(values) }
        case .or(let parts): return parts.contains { $0.matches(values) }
        }
    }
}
