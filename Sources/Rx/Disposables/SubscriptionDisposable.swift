/// An owner of subscriptions keyed in a `Bag`, e.g. a subject.
protocol SynchronizedUnsubscribeType: AnyObject, Sendable {
    func synchronizedUnsubscribe(_ disposeKey: BagKey)
}

/// Removes one observer from its owner on disposal.
struct SubscriptionDisposable<Owner: SynchronizedUnsubscribeType>: Disposable {
    private let key: BagKey
    private weak var owner: Owner?

    init(owner: Owner, key: BagKey) {
        self.owner = owner
        self.key = key
    }

    func dispose() {
        owner?.synchronizedUnsubscribe(key)
    }
}
