/// A disposable that does nothing on disposal.
struct NopDisposable: Disposable {
    static let noOp: Disposable = NopDisposable()

    func dispose() {}
}
