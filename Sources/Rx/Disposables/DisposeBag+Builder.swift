extension DisposeBag {
    /// A bag holding `disposables`.
    public convenience init(disposing disposables: Disposable...) {
        self.init(disposing: disposables)
    }

    /// A bag holding `disposables`.
    public convenience init(disposing disposables: [Disposable]) {
        self.init()
        insert(disposables)
    }

    /// A bag holding the disposables `builder` lists.
    public convenience init(@DisposableBuilder builder: () -> [Disposable]) {
        self.init(disposing: builder())
    }

    /// Adds `disposables`.
    public func insert(_ disposables: [Disposable]) {
        for disposable in disposables {
            insert(disposable)
        }
    }

    /// Adds the disposables `builder` lists.
    public func insert(@DisposableBuilder builder: () -> [Disposable]) {
        insert(builder())
    }

    /// Lists disposables, one per line: `DisposeBag { a.subscribe(); b.subscribe() }`.
    @resultBuilder
    public struct DisposableBuilder {
        /// The disposables of the block.
        public static func buildBlock(_ disposables: Disposable...) -> [Disposable] {
            disposables
        }
    }
}
