/// Assigns dense ids to token strings while the index is built, without a heap object per token:
/// the strings live in one arena and an open-addressing table maps them to ids.
typealias TermInterner = ArenaInterner<UInt16>

extension ArenaInterner where Unit == UInt16 {
    init(expectedTerms: Int) {
        self.init(expected: expectedTerms, minimumSlots: 1024)
    }

    /// The id of `token`, adding it if new.
    mutating func intern(_ token: ArraySlice<UInt16>) -> UInt32 {
        add(token).id
    }
}
