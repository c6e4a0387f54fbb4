extension ObservableType {
    /// Constructs an observable sequence that depends on a resource object, whose lifetime is tied to the resulting observable sequence's lifetime.
    ///
    /// - parameter resourceFactory: Factory function to obtain a resource object.
    /// - parameter observableFactory: Factory function to obtain an observable sequence that depends on the obtained resource.
    public static func using<Resource: Disposable>(_ resourceFactory: @escaping () throws -> Resource, observableFactory: @escaping (Resource) throws -> Observable<Element>) -> Observable<Element> {
        Observable.deferred {
            let resource = try resourceFactory()
            let source: Observable<Element>
            do {
                source = try observableFactory(resource)
            } catch {
                resource.dispose()
                throw error
            }
            return source.do(onDispose: { resource.dispose() })
        }
    }
}
