import Foundation  // FileHandle: not in FoundationEssentials
import NetCore
import NetKitLock

/// Sleeps a pause of a faulty reply on the stub's clock, as a real transport's idle timer lives it: a pause longer
/// than the request's idle timeout lasts the idle timeout, then fails.
struct StubSilence: Sendable {
    let clock: any Clock<Duration>
    let idleTimeout: Duration?

    /// Waits `duration` (nothing for zero); `point` says where, for the error.
    /// - Throws: `TransportError(.timedOut)` when `duration` is longer than the idle timeout; the clock's
    ///   `CancellationError` when the task is cancelled.
    func wait(_ duration: Duration, _ point: String) async throws {
        guard duration > .zero else { return }
        if let idleTimeout, duration > idleTimeout {
            try await clock.sleep(for: idleTimeout)
            throw TransportError(
                .timedOut,
                detail: "StubTransport: nothing came for the request's idleTimeout of \(idleTimeout), "
                    + "during a pause of \(duration) \(point)")
        }
        try await clock.sleep(for: duration)
    }
}
