/// A route's path pattern: literal segments, `:name` parameters and an
/// optional trailing `*` that takes the rest of the path.
struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case wildcard
    }

    let segments: [Segment]
    let description: String

    init(_ pattern: String) {
        description = pattern
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        segments = parts.enumerated().map { index, part in
            if part == "*" {
                precondition(index == parts.count - 1, "`*` must be the last segment of \(pattern)")
                return .wildcard
            }
            if part.first == ":" {
                precondition(part.count > 1, "empty parameter name in \(pattern)")
                return .parameter(String(part.dropFirst()))
            }
            return .literal(String(part))
        }
    }

    /// The non-empty segments of `path`, split on `/` (bytewise: this runs per request).
    static func segments(of path: String) -> [Substring] {
        var segments: [Substring] = []
        let utf8 = path.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if start != index { segments.append(path[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { segments.append(path[start...]) }
        return segments
    }

    /// The parameters when `path` (already split) matches, else nil.
    func match(_ path: [Substring]) -> PathParameters? {
        var parameters = PathParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .wildcard:
                let rest = path[min(index, path.count)...].joined(separator: "/")
                parameters.storage.append(("*", PercentDecoding.decode(Substring(rest), plusAsSpace: false)))
                return parameters
            case .literal(let literal):
                guard index < path.count, path[index].utf8.elementsEqual(literal.utf8) else { return nil }
            case .parameter(let name):
                guard index < path.count, !path[index].isEmpty else { return nil }
                parameters.storage.append((name, PercentDecoding.decode(path[index], plusAsSpace: false)))
            }
        }
        return path.count == segments.count ? parameters : nil
    }
}
