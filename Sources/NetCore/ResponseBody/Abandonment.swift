import NetKitLock

/// Tells the transport, once, that the consumer stopped before the end of the body.
final class Abandonment: Sendable {
    private let action: Lock<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Lock(action)
    }

    func fire() {
        action.withLock { action in
            defer { action = nil }
            return action
        }?()
    }

    /// Called at the end of the body: nothing to abandon any more.
    func disarm() {
        action.withLock { $0 = nil }
    }

    deinit {
        // The last copy of a body nobody iterated to its end went away.
        fire()
    }
}
