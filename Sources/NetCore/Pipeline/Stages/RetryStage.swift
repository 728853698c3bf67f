#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends the request again after a transient failure, as the request's ``RetryPolicy`` allows: never a refresh
/// failure, never a non-replayable body, never a non-idempotent method unless the request opts in; and, when the
/// engine has a ``RetryBudget``, only while the budget of the request's origin is not spent.
package struct RetryStage: RequestStage {
    package let policy: RetryPolicy
    package let state: RequestState
    package let clock: any Clock<Duration>
    package let randomUnit: @Sendable () -> Double
    /// How the caller will see an error (a custom `shouldRetry` judges that).
    package let presentation: ErrorPresentation
    /// Bounds the retries of every request of the engine together; `nil`: only the policy bounds them.
    package let budget: RetryBudget?

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        // The budget is kept by the origin the request was sent to (a redirect followed inside does not move it).
        let origin = budget.map { _ in HTTPOrigin(request.head) }
        if let budget, let origin { budget.deposit(for: origin) }
        var retry = 0
        while true {
            do {
                return try await next(request)
            } catch let failure as RefreshFailure {
                throw failure
            } catch {
                if Task.isCancelled || error is CancellationError { throw error }
                retry += 1
                let failure = error as? ResponseFailure
                let visible = failure?.error ?? error
                guard
                    let seconds = policy.delay(
                        beforeRetry: retry,
                        after: visible,
                        presentedAs: presentation.present(visible),
                        response: failure?.head,
                        now: Date(),
                        randomUnit: randomUnit()
                    )
                else { throw error }
                if let budget, let origin, !budget.withdraw(for: origin) {
                    // The caller's own error, as without a retry policy: the budget only says why it came early.
                    state.recordRetryBudgetExhausted(origin: origin)
                    throw error
                }
                let wait = Duration.milliseconds(Int64((seconds * 1000).rounded()))
                state.recordRetry(after: wait, because: visible)
                state.nextAttempt(because: .retry(wait: wait))
                try await clock.sleep(for: wait)
            }
        }
    }
}
