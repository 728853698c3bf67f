#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends the request again after a transient failure, as the request's ``RetryPolicy`` allows: never a refresh
/// failure, never a non-replayable body, never a non-idempotent method unless the request opts in.
package struct RetryStage: RequestStage {
    package let policy: RetryPolicy
    package let state: RequestState
    package let clock: any Clock<Duration>
    package let randomUnit: @Sendable () -> Double
    /// How the caller will see an error (a custom `shouldRetry` judges that).
    package let presentation: ErrorPresentation

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
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
                let wait = Duration.milliseconds(Int64((seconds * 1000).rounded()))
                state.recordRetryWait(wait)
                state.nextAttempt(because: .retry(wait: wait))
                try await clock.sleep(for: wait)
            }
        }
    }
}
