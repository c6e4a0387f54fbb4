/// Observer that calls a closure for each event until the first terminal event.
final class AnonymousObserver<Element>: ObserverBase<Element>, @unchecked Sendable {
    typealias EventHandler = (Event<Element>) -> Void

    private let eventHandler: EventHandler

    init(_ eventHandler: @escaping EventHandler) {
        self.eventHandler = eventHandler
        super.init()
        Resources.incrementTotal()
    }

    override func onCore(_ event: Event<Element>) {
        eventHandler(event)
    }

    deinit { Resources.decrementTotal() }
}
