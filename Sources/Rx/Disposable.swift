/// Represents a disposable resource.
///
/// `dispose()` may be called from any thread, any number of times; the resource is
/// released at most once.
public protocol Disposable: Sendable {
    /// Dispose resource.
    func dispose()
}

/// Represents a disposable resource that can be checked for disposal status.
public protocol Cancelable: Disposable {
    /// Was resource disposed.
    var isDisposed: Bool { get }
}
