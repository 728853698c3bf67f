import NetKitLock

/// Bounds everything inside it — every attempt, every retry wait, the token refresh — by one deadline, and ends
/// the request with ``TransportError/Kind/timedOut`` when it passes.
///
/// NetKit's own timer on the continuous clock, to the millisecond, on every transport: URLSession on Linux
/// truncates its timeouts to whole seconds and ignores the resource timeout.
///
/// The rest of the road runs in one child task, which the deadline cancels (the caller's own task is never
/// cancelled, so a caller that catches the timeout goes on). One timer serves every request in flight
/// (``DeadlineScheduler``): a timer per request, a second child sleeping until the deadline, cost several times the
/// rest of the engine and left a sleep behind for every request that ended in time.
package struct DeadlineStage: RequestStage {
    package let deadline: MonotonicInstant

    package init(deadline: MonotonicInstant) {
        self.deadline = deadline
    }

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        let deadline = self.deadline.instant
        // The group waits for its child before it returns, so `next` never outlives this call.
        return try await withoutActuallyEscaping(next) { next in
            try await withThrowingTaskGroup(of: Void.self) { group in
                let race = Race()
                group.addTask {
                    do {
                        race.decide(.finished(.success(try await next(request))))
                    } catch {
                        race.decide(.finished(.failure(error)))
                    }
                }
                let ticket = DeadlineScheduler.shared.schedule(at: deadline) { race.decide(.expired) }
                // The caller's cancellation reaches the child (its group's), which then finishes with its error.
                let outcome = await race.outcome()
                DeadlineScheduler.shared.cancel(ticket)
                switch outcome {
                case .finished(let result):
                    return try result.get()
                case .expired:
                    group.cancelAll()
                    throw TransportError(.timedOut, detail: "the request did not finish within its timeout")
                        .located(at: request.head)
                }
            }
        }
    }

    /// Which came first, the road's end or the deadline; the stage waits for it without polling.
    private final class Race: Sendable {
        enum Outcome: Sendable {
            case finished(Result<Exchange, any Error>)
            case expired
        }

        private enum State {
            case open
            case waiting(CheckedContinuation<Outcome, Never>)
            case decided(Outcome)
        }

        private let state = Lock(State.open)

        /// The first outcome wins; a later one is dropped.
        func decide(_ outcome: Outcome) {
            let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                switch state {
                case .open:
                    state = .decided(outcome)
                    return nil
                case .waiting(let continuation):
                    state = .decided(outcome)
                    return continuation
                case .decided:
                    return nil
                }
            }
            waiter?.resume(returning: outcome)
        }

        /// The outcome, once there is one.
        func outcome() async -> Outcome {
            await withCheckedContinuation { continuation in
                let decided = state.withLock { state -> Outcome? in
                    if case .decided(let outcome) = state { return outcome }
                    state = .waiting(continuation)
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        }
    }
}
