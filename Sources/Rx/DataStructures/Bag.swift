/// Key of an item in a `Bag`.
struct BagKey: Hashable, Sendable {
    fileprivate let rawValue: UInt64
}

/// An unordered collection with O(1) insert returning a removal key.
/// Iteration is in insertion order. Removal is a linear scan, cheap for the
/// observer counts subjects and shares see; arrays keep dispatch allocation-free.
struct Bag<T> {
    private var nextKey: UInt64 = 0
    private var keys: ContiguousArray<UInt64> = []
    private(set) var items: ContiguousArray<T> = []

    init() {}

    mutating func insert(_ element: T) -> BagKey {
        let key = nextKey
        nextKey &+= 1
        keys.append(key)
        items.append(element)
        return BagKey(rawValue: key)
    }

    @discardableResult
    mutating func removeKey(_ key: BagKey) -> T? {
        // Recent subscribers tend to leave first: scan from the end.
        var index = keys.count - 1
        while index >= 0 {
            if keys[index] == key.rawValue {
                keys.remove(at: index)
                return items.remove(at: index)
            }
            index -= 1
        }
        return nil
    }

    mutating func removeAll() {
        keys.removeAll()
        items.removeAll()
    }

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
}

/// Sends `event` to every observer in `observers`.
@inline(__always)
func dispatch<Element>(_ observers: ContiguousArray<AnyObserver<Element>>, _ event: Event<Element>) {
    for observer in observers {
        observer.on(event)
    }
}

/// Sends `element` to every observer in `observers`.
@inline(__always)
func dispatchNext<Element>(_ observers: ContiguousArray<AnyObserver<Element>>, _ element: Element) {
    for observer in observers {
        observer.onNext(element)
    }
}
