extension FilterValue {
    /// The case folding of string values: the filter parser folds the values of a filter with
    /// it, and the engine must fold the documents' values with the same function, or `=` would
    /// miss (`"Café"` and `"CAFÉ"` are equal, `"cafe"` is not: accents are kept).
    public static func fold(_ text: some StringProtocol) -> String {
        text.lowercased()
    }
}
