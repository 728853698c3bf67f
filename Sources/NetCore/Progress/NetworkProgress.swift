import Observation
import Synchronization

/// The progress of an upload (or, for a request without a body, a download), from 0.0 to exactly 1.0.
///
/// Observe it with Observation (`withObservationTracking`, SwiftUI) or iterate ``updates``:
///
/// ```swift
/// let progress = NetworkProgress()
/// Task { for await fraction in progress.updates { print(fraction) } }
/// _ = try await manager.send(UploadRequest(file: data, progress: progress), accessToken: nil)
/// ```
///
/// The value never goes backwards and reaches 1.0 when the request succeeds. ``updates`` finishes when the
/// request ends, however it ends: on success after 1.0, on failure or cancellation at the last value reached;
/// ``outcome`` then says which. Use one progress per request.
/// EKNetwork's `@Published` projection (`$fractionCompleted`) needs Combine, which Linux lacks; use
/// ``updates`` or Observation instead.
public final class NetworkProgress: Observable, Sendable {
    /// How a transfer ended.
    public enum Outcome: Sendable, Equatable {
        /// The request succeeded; the fraction is exactly 1.0.
        case completed
        /// The request failed.
        case failed
        /// The request was cancelled.
        case cancelled
    }

    private struct State {
        var fraction = 0.0
        var outcome: Outcome?
        var subscribers: [Int: AsyncStream<Double>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let registrar = ObservationRegistrar()
    private let state = Mutex(State())

    /// Creates a progress at 0.
    public init() {}

    /// The fraction done, from 0.0 to 1.0. Setting it clamps to that range and ignores a smaller value; setting
    /// 1.0 completes the transfer.
    public var fractionCompleted: Double {
        get {
            registrar.access(self, keyPath: \.fractionCompleted)
            return state.withLock { $0.fraction }
        }
        set {
            if newValue >= 1.0 { markFinished() } else { update(to: newValue) }
        }
    }

    /// Whether the transfer has completed successfully.
    public var isFinished: Bool { fractionCompleted >= 1.0 }

    /// How the transfer ended; `nil` while it runs.
    public var outcome: Outcome? {
        registrar.access(self, keyPath: \.outcome)
        return state.withLock { $0.outcome }
    }

    /// Every new value, starting with the current one; finishes when the transfer ends (see ``outcome``).
    public var updates: AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(64))
        let (current, ended): (Double, Bool) = state.withLock { state in
            if state.outcome == nil {
                let id = state.nextSubscriber
                state.nextSubscriber += 1
                state.subscribers[id] = continuation
                continuation.onTermination = { [weak self] _ in
                    self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
                }
            }
            return (state.fraction, state.outcome != nil)
        }
        continuation.yield(current)
        if ended { continuation.finish() }
        return stream
    }

    /// Reports `completed` of `total` units; ignored while `total` is unknown (0 or less).
    package func report(completed: Int64, of total: Int64) {
        guard total > 0 else { return }
        // The last byte is reported by markFinished() once the response is in, so a transfer that has sent
        // everything still waits for the server's answer below 1.0.
        update(to: min(Double(completed) / Double(total), 0.999))
    }

    /// Marks the transfer done: exactly 1.0, outcome ``Outcome/completed``.
    package func markFinished() {
        update(to: 1.0)
        end(.completed)
    }

    /// Ends the transfer without success: the value stays where it was, ``updates`` finishes.
    package func markEnded(_ outcome: Outcome) {
        end(outcome)
    }

    private func end(_ outcome: Outcome) {
        let subscribers: [AsyncStream<Double>.Continuation] = registrar.withMutation(of: self, keyPath: \.outcome) {
            state.withLock { state in
                guard state.outcome == nil else { return [] }
                state.outcome = outcome
                defer { state.subscribers.removeAll() }
                return Array(state.subscribers.values)
            }
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private func update(to proposed: Double) {
        let value = proposed.isNaN ? 0 : min(max(proposed, 0), 1)
        guard state.withLock({ value > $0.fraction && $0.outcome == nil }) else { return }
        // Observers are told outside the lock: an onChange handler that reads the value must not deadlock.
        let subscribers: [AsyncStream<Double>.Continuation] = registrar.withMutation(of: self, keyPath: \.fractionCompleted) {
            state.withLock { state in
                guard value > state.fraction, state.outcome == nil else { return [] }
                state.fraction = value
                return Array(state.subscribers.values)
            }
        }
        for subscriber in subscribers { subscriber.yield(value) }
    }
}
