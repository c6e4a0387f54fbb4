/// Shared state of `zip` sinks: which sources are done. Subclasses keep one queue per
/// source and build a result when every queue has an element.
class ZipSink<Observer: ObserverType>: Sink<Observer>, ZipSinkProtocol, @unchecked Sendable {
    typealias Element = Observer.Element

    let arity: Int
    let lock = RecursiveLock()

    // state
    private var isDone: [Bool]

    init(arity: Int, observer: Observer, cancel: Cancelable) {
        isDone = [Bool](repeating: false, count: arity)
        self.arity = arity
        super.init(observer: observer, cancel: cancel)
    }

    func getResult() throws -> Element {
        rxAbstractMethod()
    }

    func hasElements(_ index: Int) -> Bool {
        rxAbstractMethod()
    }

    func next(_ index: Int) {
        var hasValueAll = true
        for i in 0 ..< arity where !hasElements(i) {
            hasValueAll = false
            break
        }
        if hasValueAll {
            do {
                let result = try getResult()
                forwardOn(.next(result))
            } catch let e {
                forwardOn(.error(e))
                dispose()
            }
        } else {
            var allOthersDone = true
            for i in 0 ..< arity where i != index && !isDone[i] {
                allOthersDone = false
                break
            }
            if allOthersDone {
                forwardOn(.completed)
                dispose()
            }
        }
    }

    func fail(_ error: Swift.Error) {
        forwardOn(.error(error))
        dispose()
    }

    func done(_ index: Int) {
        isDone[index] = true
        var allDone = true
        for done in isDone where !done {
            allDone = false
            break
        }
        if allDone {
            forwardOn(.completed)
            dispose()
        }
    }
}

protocol ZipSinkProtocol: AnyObject {
    func next(_ index: Int)
    func fail(_ error: Swift.Error)
    func done(_ index: Int)
}

/// Observer of one `zip` source: enqueues its values and notifies the sink under its lock.
final class ZipObserver<Element>: ObserverType, SynchronizedOnType {
    typealias ValueSetter = (Element) -> Void

    private var parent: ZipSinkProtocol?
    let lock: RecursiveLock

    // state
    private let index: Int
    private let this: Disposable
    private let setNextValue: ValueSetter

    init(lock: RecursiveLock, parent: ZipSinkProtocol, index: Int, setNextValue: @escaping ValueSetter, this: Disposable) {
        self.lock = lock
        self.parent = parent
        self.index = index
        self.this = this
        self.setNextValue = setNextValue
    }

    func on(_ event: Event<Element>) {
        synchronizedOn(event)
    }

    func synchronized_on(_ event: Event<Element>) {
        if parent != nil {
            switch event {
            case .next: break
            case .error: this.dispose()
            case .completed: this.dispose()
            }
        }
        if let parent {
            switch event {
            case .next(let value):
                setNextValue(value)
                parent.next(index)
            case .error(let error):
                parent.fail(error)
            case .completed:
                parent.done(index)
            }
        }
    }
}
