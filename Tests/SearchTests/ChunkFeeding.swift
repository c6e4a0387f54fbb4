/// Feeds an input to a streaming reader in pieces, to check that where the chunks end changes nothing.
enum ChunkFeeding {
    /// The input cut at `cuts` (increasing offsets), fed piece by piece, then finished.
    static func outputs<Output>(
        _ input: [UInt8], cuts: [Int], feed: (ArraySlice<UInt8>) -> [Output], finish: () -> [Output]
    ) -> [Output] {
        var outputs: [Output] = []
        var start = 0
        for cut in cuts + [input.count] {
            outputs += feed(input[start..<cut])
            start = cut
        }
        return outputs + finish()
    }

    /// Every way to cut `count` bytes once and twice, and into single bytes.
    static func cutSets(_ count: Int) -> [[Int]] {
        var sets: [[Int]] = [[], Array(0...count)]
        for first in 0...count {
            sets.append([first])
            for second in first...count { sets.append([first, second]) }
        }
        return sets
    }
}
