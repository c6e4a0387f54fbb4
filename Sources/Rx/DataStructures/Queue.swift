/// A FIFO ring buffer that grows as needed.
struct Queue<T> {
    private var storage: ContiguousArray<T?>
    private var head = 0
    private(set) var count = 0

    init(capacity: Int = 0) {
        storage = ContiguousArray(repeating: nil, count: Swift.max(capacity, 0))
    }

    var isEmpty: Bool { count == 0 }

    mutating func enqueue(_ element: T) {
        if count == storage.count { grow() }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func dequeue() -> T? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    func peek() -> T? {
        count > 0 ? storage[head] : nil
    }

    mutating func removeAll() {
        storage = []
        head = 0
        count = 0
    }

    private mutating func grow() {
        let newCapacity = Swift.max(storage.count * 2, 4)
        var newStorage = ContiguousArray<T?>(repeating: nil, count: newCapacity)
        for i in 0..<count {
            newStorage[i] = storage[(head + i) % storage.count]
        }
        storage = newStorage
        head = 0
    }

    /// Elements in FIFO order.
    var elements: [T] {
        (0..<count).map { storage[(head + $0) % storage.count]! }
    }
}
