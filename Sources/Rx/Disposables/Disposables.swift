/// A collection of utility methods for common disposable operations.
public struct Disposables: Sendable {
    private init() {}
}

extension Disposables {
    /// Creates a disposable that does nothing on disposal.
    public static func create() -> Disposable { NopDisposable.noOp }

    /// Constructs a new disposable with the given action used for disposal.
    /// The action runs at most once, whichever thread disposes first.
    public static func create(with dispose: @escaping () -> Void) -> Cancelable {
        AnonymousDisposable(disposeAction: dispose)
    }

    /// Creates a disposable with the given disposables, disposed together.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        BinaryDisposable(disposable1, disposable2)
    }

    /// Creates a disposable with the given disposables, disposed together.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable) -> Cancelable {
        CompositeDisposable(disposable1, disposable2, disposable3)
    }

    /// Creates a disposable with the given disposables, disposed together.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable, _ disposables: Disposable ...) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// Creates a disposable with the given disposables, disposed together.
    public static func create(_ disposables: [Disposable]) -> Cancelable {
        switch disposables.count {
        case 2: return BinaryDisposable(disposables[0], disposables[1])
        default: return CompositeDisposable(disposables: disposables)
        }
    }
}
