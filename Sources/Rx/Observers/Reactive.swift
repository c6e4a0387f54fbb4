import Foundation

/// The `.rx` namespace (RxSwift's `Reactive`): extend `Reactive where Base: YourType` to add
/// reactive members to a type; a writable key path of a class is a ``Binder`` at once
/// (`object.rx.title` binds to `object.title`).
@dynamicMemberLookup
public struct Reactive<Base> {
    /// The extended instance.
    public let base: Base

    /// Creates the extensions of `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// A ``Binder`` that sets `keyPath` of the base object.
    public subscript<Property>(dynamicMember keyPath: ReferenceWritableKeyPath<Base, Property>) -> Binder<Property>
    where Base: AnyObject {
        Binder(base) { base, value in base[keyPath: keyPath] = value }
    }
}

/// A type with the `.rx` namespace (RxSwift's `ReactiveCompatible`): declare the conformance,
/// then extend `Reactive where Base: YourType`.
public protocol ReactiveCompatible {
    /// The type `Reactive` extends.
    associatedtype ReactiveBase

    /// The reactive extensions of the type.
    static var rx: Reactive<ReactiveBase>.Type { get set }
    /// The reactive extensions of the instance.
    var rx: Reactive<ReactiveBase> { get set }
}

extension ReactiveCompatible {
    /// The reactive extensions of the type.
    public static var rx: Reactive<Self>.Type {
        get { Reactive<Self>.self }
        set {}  // lets `mutating` extensions be called through `rx`
    }

    /// The reactive extensions of the instance.
    public var rx: Reactive<Self> {
        get { Reactive(self) }
        set {}  // lets `mutating` extensions be called through `rx`
    }
}

/// Every `NSObject` has `.rx`, as in RxSwift.
extension NSObject: ReactiveCompatible {}
