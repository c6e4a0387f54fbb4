/// The best `capacity` elements offered, by `precedes` (a max-heap of the kept ones: the worst
/// kept is at the root, compared with each newcomer). Sorting only the page, not every match.
struct BoundedHeap<Element> {
    let capacity: Int
    private(set) var elements: [Element] = []

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
        elements.reserveCapacity(min(self.capacity, 4_096))
    }

    var isFull: Bool { elements.count >= capacity }

    /// Keeps `element` if it is among the best so far.
    @inline(__always)
    mutating func offer(_ element: Element, precedes: (Element, Element) -> Bool) {
        guard capacity > 0 else { return }
        if elements.count < capacity {
            elements.append(element)
            var child = elements.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(elements[parent], elements[child]) else { break }
                elements.swapAt(parent, child)
                child = parent
            }
        } else if precedes(element, elements[0]) {
            elements[0] = element
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var worst = parent
                if left < elements.count, precedes(elements[worst], elements[left]) { worst = left }
                if right < elements.count, precedes(elements[worst], elements[right]) { worst = right }
                if worst == parent { break }
                elements.swapAt(parent, worst)
                parent = worst
            }
        }
    }

    /// The kept elements, best first.
    func sorted(by precedes: (Element, Element) -> Bool) -> [Element] {
        elements.sorted(by: precedes)
    }
}
