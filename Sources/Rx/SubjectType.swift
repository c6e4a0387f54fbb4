/// Represents an object that is both an observable sequence and an observer.
public protocol SubjectType: ObservableType {
    /// The type of the observer that represents this subject.
    associatedtype Observer: ObserverType

    /// Returns observer interface for subject.
    func asObserver() -> Observer
}
