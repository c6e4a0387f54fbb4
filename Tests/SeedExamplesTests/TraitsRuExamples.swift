import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Rx
import RxCompat

// The code of `/work/shared/seeds/traits-ru.txt` (RxSwift 5 era), as written there. Left
// out: the `struct Single`/`struct Driver` sketch (an illustration that would redeclare the
// types) and the `extension Reactive where Base: UISearchBar/UISegmentedControl/
// UIViewController/UICollectionView` blocks (UIKit and the Objective-C runtime).

extension UnitsHarness {
    /// "Практический пример использования": the beginner example, RxSwift 5 spellings.
    func traitsRuBeginnerExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx.text
            .throttle(.milliseconds(300), scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
            }

        results
            .map { "\($0.count)" }
            .bind(to: resultCount.rx.text)
            .disposed(by: disposeBag)

        results
            .bind(to: resultsTableView.rx.items(cellIdentifier: "Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .disposed(by: disposeBag)
    }

    /// The appropriate version.
    func traitsRuAppropriateExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx.text
            .throttle(.milliseconds(300), scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
                    .observeOn(MainScheduler.instance) // результаты возвращаются в MainScheduler
                    .catchErrorJustReturn([])           // в худшем случае обрабатываются ошибки
            }
            .share(replay: 1)                          // HTTP-запросы передаются, а результаты воспроизводятся
                                                         // ко всем элементам пользовательского интерфейса

        results
            .map { "\($0.count)" }
            .bind(to: resultCount.rx.text)
            .disposed(by: disposeBag)

        results
            .bind(to: resultsTableView.rx.items(cellIdentifier: "Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .disposed(by: disposeBag)
    }

    /// The `Driver` version.
    func traitsRuDriverExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx.text.asDriver()        // Это преобразует обычную последовательность в последовательность `Драйвер`
            .throttle(.milliseconds(300), scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
                    .asDriver(onErrorJustReturn: [])  // Строителю просто нужна информация о том, что возвращать в случае ошибки.
            }

        results
            .map { "\($0.count)" }
            .drive(resultCount.rx.text)             // Если вместо `bind(to:)` доступен метод `drive`,
            .disposed(by: disposeBag)              // это означает, что компилятор доказал, что все свойства
                                                      // удовлетворены.


        results
            .drive(resultsTableView.rx.items(cellIdentifier: "Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .disposed(by: disposeBag)
    }

    /// The `asDriver(onErrorJustReturn:)` equivalent; `Driver(raw:)` is internal (see the
    /// units-en version), so this returns `safeSequence`.
    func traitsRuAsDriverEquivalent(_ xs: Observable<[String]>, onErrorJustReturn: [String]) -> Observable<[String]> {
        let safeSequence = xs
          .observeOn(MainScheduler.instance)        // наблюдаем за событиями в главном планировщике
          .catchErrorJustReturn(onErrorJustReturn)  // не может вывести ошибку
          .share(replay: 1, scope: .whileConnected) // обмен побочными эффектами

        return safeSequence                         // seed: `return Driver(raw: safeSequence)` (internal)
    }
}

/// The `Single`, `Completable` and `Maybe` examples. `print` is a member that records the
/// lines, so the examples' `print` calls are what the tests assert.
final class TraitsHarness {
    var disposeBag = DisposeBag()
    private(set) var printed: [String] = []

    /// What the examples print.
    func print(_ items: Any...) {
        printed.append(items.map { "\($0)" }.joined(separator: " "))
    }

    enum DataError: Error { case cantParseJSON }
    enum CacheError: Error { case failedCaching }

    /// Compiled, not run (it calls GitHub). Verbatim.
    func getRepo(_ repo: String) -> Single<[String: Any]> {
        return Single<[String: Any]>.create { single in
            let task = URLSession.shared.dataTask(with: URL(string: "https://api.github.com/repos/\(repo)")!) { data, _, error in
                if let error = error {
                    single(.error(error))
                    return
                }

                guard let data = data,
                      let json = try? JSONSerialization.jsonObject(with: data, options: .mutableLeaves),
                      let result = json as? [String: Any] else {
                    single(.error(DataError.cantParseJSON))
                    return
                }

                single(.success(result))
            }

            task.resume()

            return Disposables.create { task.cancel() }
        }
    }

    /// Compiled, not run. The seed's `case .error(let error):` can't compile against RxSwift 6,
    /// where `SingleEvent` is `Result` (a pattern can't be forwarded); it is `.failure` here.
    func subscribeToRepoWithSwitch() {
        let print = self.print // the closures' `print` (a class's escaping closures would need `self.`)
        getRepo("ReactiveX/RxSwift")
            .subscribe { event in
                switch event {
                    case .success(let json):
                        print("JSON: ", json)
                    case .failure(let error):   // seed: `case .error(let error):` (RxSwift 5)
                        print("Error: ", error)
                }
            }
            .disposed(by: disposeBag)
    }

    /// Compiled, not run. Verbatim (`onError:` from RxCompat).
    func subscribeToRepoWithHandlers() {
        let print = self.print // the closures' `print` (a class's escaping closures would need `self.`)
        getRepo("ReactiveX/RxSwift")
            .subscribe(onSuccess: { json in
                           print("JSON: ", json)
                       },
                       onError: { error in
                           print("Error: ", error)
                       })
            .disposed(by: disposeBag)
    }

    /// Whether `cacheLocally`'s "store some data locally" step succeeds.
    var cachingSucceeds = true

    /// The seed's `...` lines ("Store some data locally") are the one `let success` line.
    func cacheLocally() -> Completable {
        return Completable.create { completable in
           // Store some data locally
           let success = self.cachingSucceeds // seed: `...`

           guard success else {
               completable(.error(CacheError.failedCaching))
               return Disposables.create {}
           }

           completable(.completed)
           return Disposables.create {}
        }
    }

    func subscribeToCacheWithSwitch() {
        let print = self.print // the closures' `print` (a class's escaping closures would need `self.`)
        cacheLocally()
            .subscribe { completable in
                switch completable {
                    case .completed:
                        print("Completed with no error")
                    case .error(let error):
                        print("Completed with an error: \(error.localizedDescription)")
                }
            }
            .disposed(by: disposeBag)
    }

    func subscribeToCacheWithHandlers() {
        let print = self.print // the closures' `print` (a class's escaping closures would need `self.`)
        cacheLocally()
            .subscribe(onCompleted: {
                           print("Completed with no error")
                       },
                       onError: { error in
                           print("Completed with an error: \(error.localizedDescription)")
                       })
            .disposed(by: disposeBag)
    }

    /// Which of the three "ИЛИ" (or) branches `generateString` takes: the seed emits all
    /// three in a row, and a `Maybe` keeps the first.
    let error = CacheError.failedCaching

    func generateString() -> Maybe<String> {
        let error = self.error // the closure's `error` (a class's escaping closures would need `self.`)
        return Maybe<String>.create { maybe in
            maybe(.success("RxSwift"))

            // ИЛИ

            maybe(.completed)

            // ИЛИ

            maybe(.error(error))

            return Disposables.create {}
        }
    }

    func subscribeToStringWithSwitch() {
        let print = self.print // the closures' `print` (a class's escaping closures would need `self.`)
        generateString()
            .subscribe { maybe in
                switch maybe {
                    case .success(let element):
                        print("Completed with element \(element)")
                    case .completed:
                        print("Completed with no element")
                    case .error(let error):
                        print("Completed with an error \(error.localizedDescription)")
                }
            }
            .disposed(by: disposeBag)
    }

    func subscribeToStringWithHandlers() {
        let print = self.print // the closures' `print` (a class's escaping closures would need `self.`)
        generateString()
            .subscribe(onSuccess: { element in
                           print("Completed with element \(element)")
                       },
                       onError: { error in
                           print("Completed with an error \(error.localizedDescription)")
                       },
                       onCompleted: {
                           print("Completed with no element")
                       })
            .disposed(by: disposeBag)
    }
}
