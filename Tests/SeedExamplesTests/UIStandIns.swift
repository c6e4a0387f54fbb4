import Rx

// The seeds' examples bind UIKit controls (a search field, a label, a table view). These
// stand-ins keep the examples' text as written: each control's state is a plain relay, and
// its `rx` members (`rx.text`, `rx.items(cellIdentifier:)`, and the 2.x spellings `rx_text`,
// `rx_itemsWithCellIdentifier`) have RxCocoa's shapes.

/// Stands in for `UISearchBar`/`UITextField`: `rx.text` is a `ControlProperty<String?>`
/// over the relay `text`.
final class TextInputStandIn {
    let text = BehaviorRelay<String?>(value: "")

    struct Reactive {
        let text: ControlProperty<String?>
    }

    var rx: Reactive { Reactive(text: rx_text) }

    /// RxCocoa 2.x spelling of `rx.text`.
    var rx_text: ControlProperty<String?> { ControlProperty(relay: text) }

    /// The user types `text`.
    func type(_ text: String) { self.text.accept(text) }
}

/// Stands in for `UILabel`: `rx.text` accepts into the relay `text`.
final class LabelStandIn {
    let text = BehaviorRelay<String?>(value: nil)

    struct Reactive {
        let text: AnyObserver<String?>
    }

    var rx: Reactive { Reactive(text: rx_text) }

    /// RxCocoa 2.x spelling of `rx.text`.
    var rx_text: AnyObserver<String?> {
        AnyObserver { [text] event in
            if case .next(let value) = event { text.accept(value) }
        }
    }
}

/// Stands in for `UITableViewCell`: `textLabel?.text`.
final class CellStandIn {
    final class TextLabel {
        var text: String?
    }

    let textLabel: TextLabel? = TextLabel()
}

/// Stands in for `UITableView`: `rx.items(cellIdentifier:)` configures one cell per element
/// of each array the source emits, and the relay `rows` holds the cells' texts.
final class TableViewStandIn {
    let rows = BehaviorRelay<[String?]>(value: [])

    struct Reactive {
        let base: TableViewStandIn

        /// RxCocoa's shape: `(source) -> (configureCell) -> Disposable`.
        func items<Items: Sequence, Source: ObservableType>(cellIdentifier: String)
            -> (_ source: Source)
            -> (_ configureCell: @escaping (Int, Items.Element, CellStandIn) -> Void)
            -> Disposable
        where Source.Element == Items {
            { [base] source in
                { configureCell in
                    source.subscribe(onNext: { items in
                        base.rows.accept(items.enumerated().map { row, item in
                            let cell = CellStandIn()
                            configureCell(row, item, cell)
                            return cell.textLabel?.text
                        })
                    })
                }
            }
        }
    }

    var rx: Reactive { Reactive(base: self) }

    /// RxCocoa 2.x spelling of `rx.items(cellIdentifier:)`.
    func rx_itemsWithCellIdentifier<Items: Sequence, Source: ObservableType>(_ cellIdentifier: String)
        -> (_ source: Source)
        -> (_ configureCell: @escaping (Int, Items.Element, CellStandIn) -> Void)
        -> Disposable
    where Source.Element == Items {
        rx.items(cellIdentifier: cellIdentifier)
    }
}
