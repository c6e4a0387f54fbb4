extension StringColumn {
    /// Value `v` as a live document spells it: the first of its documents that `isLive` keeps.
    ///
    /// A column keeps one spelling per value, its first document's; once that document is gone
    /// (replaced, deleted, or left out of a merge) while another that spells the value otherwise
    /// stays, that spelling is no live document's. Then it is read from the first live one's body
    /// (`document(d)`, its value of `field`): a value's own lookup, done only for the values a
    /// facet shows and those a merge carries. Nil when no document holding `v` is live.
    func liveSpelling(
        _ v: Int, field: Int, isLive: (UInt32) -> Bool, document: (UInt32) -> CollectionDocument?
    ) -> String? {
        let holders = valueDocuments[Int(valueStarts[v])..<Int(valueStarts[v + 1])]
        guard let first = holders.first(where: isLive) else { return nil }
        guard first != holders.first else { return spelling(v) }
        let folded = value(v)
        switch document(first)?.values[field] {
        case .string(let text)? where Self.fold(text) == folded:
            return text
        case .strings(let texts)?:
            if let text = texts.first(where: { Self.fold($0) == folded }) { return text }
        default:
            break
        }
        return spelling(v)
    }
}
