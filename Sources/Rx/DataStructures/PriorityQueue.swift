/// A binary min-heap with removal of arbitrary elements (identity comparison).
struct PriorityQueue<Element: AnyObject> {
    private let hasHigherPriority: (Element, Element) -> Bool
    private var elements: [Element] = []

    init(hasHigherPriority: @escaping (Element, Element) -> Bool) {
        self.hasHigherPriority = hasHigherPriority
    }

    var count: Int { elements.count }

    func peek() -> Element? { elements.first }

    mutating func enqueue(_ element: Element) {
        elements.append(element)
        bubbleToHigherPriority(elements.count - 1)
    }

    mutating func dequeue() -> Element? {
        guard let front = peek() else { return nil }
        removeAt(0)
        return front
    }

    mutating func remove(_ element: Element) {
        for i in 0..<elements.count where elements[i] === element {
            removeAt(i)
            return
        }
    }

    private mutating func removeAt(_ index: Int) {
        let removingLast = index == elements.count - 1
        if !removingLast {
            elements.swapAt(index, elements.count - 1)
        }
        _ = elements.popLast()
        if !removingLast {
            bubbleToHigherPriority(index)
            bubbleToLowerPriority(index)
        }
    }

    private mutating func bubbleToHigherPriority(_ initialIndex: Int) {
        var index = initialIndex
        while index > 0 {
            let parentIndex = (index - 1) / 2
            guard hasHigherPriority(elements[index], elements[parentIndex]) else { break }
            elements.swapAt(index, parentIndex)
            index = parentIndex
        }
    }

    private mutating func bubbleToLowerPriority(_ initialIndex: Int) {
        var index = initialIndex
        while true {
            let left = index * 2 + 1
            let right = index * 2 + 2
            var highest = index
            if left < elements.count && hasHigherPriority(elements[left], elements[highest]) { highest = left }
            if right < elements.count && hasHigherPriority(elements[right], elements[highest]) { highest = right }
            if highest == index { break }
            elements.swapAt(highest, index)
            index = highest
        }
    }
}
