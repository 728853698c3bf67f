/// Held by one iterator: when the iterator goes away before the end of the body (the consumer broke out of its
/// loop), the transfer is abandoned at once, even while copies of the body are still around.
final class IterationGuard: Sendable {
    private let abandonment: Abandonment

    init(_ abandonment: Abandonment) {
        self.abandonment = abandonment
    }

    func reachedEnd() {
        abandonment.disarm()
    }

    func abandon() {
        abandonment.fire()
    }

    deinit {
        abandonment.fire()
    }
}
