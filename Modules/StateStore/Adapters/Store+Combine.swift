#if canImport(Combine)
import Combine

extension Store {
    /// Sends every value `publisher` emits (a `Future`'s one value, or a stream) to the store,
    /// in order, until the returned cancellable is cancelled or released.
    public func send<P: Publisher>(_ publisher: P) -> AnyCancellable where P.Output == Action, P.Failure == Never {
        publisher.sink { [weak self] action in
            self?.send(action)
        }
    }
}
#endif
