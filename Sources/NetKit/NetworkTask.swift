import NetKitLock

/// A handle on a request sent with a completion handler (``NetworkManager/send(_:accessToken:options:completion:)``):
/// cancel it, start it later, or tie its life to yours.
///
/// ```swift
/// let task = manager.send(GetUser(id: 42)) { result in
///     switch result {
///     case .success(let user): print(user.name)
///     case .failure(let error): print(error)
///     }
/// }
/// task.cancel()   // the completion receives CancellationError, unless it has run already
/// ```
///
/// The completion runs exactly once: with the outcome, or with `CancellationError` when the task is cancelled first
/// (by ``cancel()``, or by releasing a handle that cancels on release). By default the request starts at once and
/// runs to its end whether you keep the handle or not; ``Options`` brings SmartNetwork's `SmartTask` habits:
/// ``Options/deferredStart`` waits for ``start()``, ``Options/cancelsOnRelease`` cancels the request when the last
/// reference to the handle goes away, unless ``detach()`` was called. A deferred task released before it started
/// can never start, so it is cancelled, and its completion receives `CancellationError` too.
public final class NetworkTask: Sendable {
    /// How a task starts and how long it lives.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int

        /// Creates options from raw bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Nothing is sent until ``NetworkTask/start()`` is called.
        public static let deferredStart = Options(rawValue: 1 << 0)
        /// Releasing the last reference to the handle cancels the request (SmartTask's habit), unless
        /// ``NetworkTask/detach()`` was called.
        public static let cancelsOnRelease = Options(rawValue: 1 << 1)
    }

    private let core: Core
    /// Whether releasing the handle cancels the request: ``Options/cancelsOnRelease`` until ``detach()``.
    private let cancelsOnRelease: Lock<Bool>

    /// A task that runs `operation` (which sends and delivers its outcome) and, when cancelled before that outcome
    /// was delivered, runs what `claimCancellation` hands back.
    /// - Parameter claimCancellation: Takes the completion for a cancellation, if no outcome has taken it yet.
    init(
        options: Options,
        operation: @escaping @Sendable () async -> Void,
        claimCancellation: @escaping @Sendable () -> (@Sendable () -> Void)?
    ) {
        self.core = Core(operation: operation, claimCancellation: claimCancellation)
        self.cancelsOnRelease = Lock(options.contains(.cancelsOnRelease))
        if !options.contains(.deferredStart) { core.start() }
    }

    deinit {
        core.release(cancelling: cancelsOnRelease.withLock { $0 })
    }

    /// Starts a task created with ``Options/deferredStart``. Does nothing for a task that has started, ended or been
    /// cancelled, so it is safe to call more than once.
    public func start() {
        core.start()
    }

    /// Cancels the request. Unless the completion has already run (or is running), it runs with `CancellationError`,
    /// soon and never inside this call; the request's outcome, should it arrive afterwards, is dropped. A task that
    /// had not started never sends anything. Calling it again, or after the end, does nothing.
    public func cancel() {
        core.cancel()
    }

    /// Lets the request run to its end after the handle is released, even when the task was created with
    /// ``Options/cancelsOnRelease``. ``cancel()`` still cancels it.
    public func detach() {
        cancelsOnRelease.withLock { $0 = false }
    }

    /// Whether ``cancel()`` (or releasing the handle) cancelled the task before its outcome reached the completion,
    /// which then received `CancellationError`.
    public var isCancelled: Bool {
        core.isCancelled
    }

    /// Waits until the request's task has ended (its outcome delivered or dropped); at once for a task that never
    /// started. For tests, which must know that nothing more can arrive.
    func waitUntilEnded() async {
        await core.waitUntilEnded()
    }

    /// The shared part of a task: what the running `Task` holds, so that holding it does not keep the handle alive.
    private final class Core: Sendable {
        private enum Phase {
            case waiting
            case running
            case cancelled
            case finished
        }

        private struct State {
            var phase = Phase.waiting
            /// The task that sends, once started; kept after it ends, for ``waitUntilEnded()``.
            var task: Task<Void, Never>?
        }

        private let state = Lock(State())
        private let operation: @Sendable () async -> Void
        private let claimCancellation: @Sendable () -> (@Sendable () -> Void)?

        init(
            operation: @escaping @Sendable () async -> Void,
            claimCancellation: @escaping @Sendable () -> (@Sendable () -> Void)?
        ) {
            self.operation = operation
            self.claimCancellation = claimCancellation
        }

        var isCancelled: Bool {
            state.withLock { $0.phase == .cancelled }
        }

        func start() {
            state.withLock { state in
                guard state.phase == .waiting else { return }
                state.phase = .running
                // Made under the lock, so that the task's own end (which takes it) comes after it is recorded.
                state.task = Task { [self] in
                    await operation()
                    finish()
                }
            }
        }

        func cancel() {
            // Claimed first: a completion that has run (or is running) with the outcome leaves nothing to cancel, and
            // once claimed here, no outcome can reach it after `cancel()` returns.
            guard let deliver = claimCancellation() else { return }
            let task = state.withLock { state in
                state.phase = .cancelled
                return state.task
            }
            task?.cancel()
            // In a task of its own, which inherits nothing from the caller's (its actor, its task-locals): the
            // completion never runs inside the caller's call.
            Task.detached { deliver() }
        }

        /// The handle is gone: a task that never started never can, and one that cancels on release is cancelled.
        func release(cancelling: Bool) {
            let neverStarted = state.withLock { $0.phase == .waiting }
            if neverStarted || cancelling { cancel() }
        }

        func waitUntilEnded() async {
            await state.withLock { $0.task }?.value
        }

        private func finish() {
            state.withLock { state in
                if state.phase == .running { state.phase = .finished }
            }
        }
    }
}
