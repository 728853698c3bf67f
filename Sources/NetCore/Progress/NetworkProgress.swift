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
/// The value never goes backwards and reaches 1.0 when the request succeeds; ``updates`` then finishes.
/// EKNetwork's `@Published` projection (`$fractionCompleted`) needs Combine, which Linux lacks; use
/// ``updates`` or Observation instead.
public final class NetworkProgress: Observable, Sendable {
    private struct State {
        var fraction = 0.0
        var subscribers: [Int: AsyncStream<Double>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let registrar = ObservationRegistrar()
    private let state = Mutex(State())

    /// Creates a progress at 0.
    public init() {}

    /// The fraction done, from 0.0 to 1.0. Setting it clamps to that range and ignores a smaller value.
    public var fractionCompleted: Double {
        get {
            registrar.access(self, keyPath: \.fractionCompleted)
            return state.withLock { $0.fraction }
        }
        set { update(to: newValue) }
    }

    /// Whether the transfer has completed.
    public var isFinished: Bool { fractionCompleted >= 1.0 }

    /// Every new value, starting with the current one; finishes after 1.0.
    public var updates: AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(64))
        let current: Double = state.withLock { state in
            if state.fraction < 1.0 {
                let id = state.nextSubscriber
                state.nextSubscriber += 1
                state.subscribers[id] = continuation
                continuation.onTermination = { [weak self] _ in
                    self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
                }
            }
            return state.fraction
        }
        continuation.yield(current)
        if current >= 1.0 { continuation.finish() }
        return stream
    }

    /// Reports `completed` of `total` units; ignored while `total` is unknown (0 or less).
    package func report(completed: Int64, of total: Int64) {
        guard total > 0 else { return }
        // The last byte is reported by markFinished() once the response is in, so a transfer that has sent
        // everything still waits for the server's answer below 1.0.
        update(to: min(Double(completed) / Double(total), 0.999))
    }

    /// Marks the transfer done: exactly 1.0.
    package func markFinished() {
        update(to: 1.0)
    }

    private func update(to proposed: Double) {
        let value = proposed.isNaN ? 0 : min(max(proposed, 0), 1)
        guard state.withLock({ value > $0.fraction }) else { return }
        // Observers are told outside the lock: an onChange handler that reads the value must not deadlock.
        let subscribers: [AsyncStream<Double>.Continuation] = registrar.withMutation(of: self, keyPath: \.fractionCompleted) {
            state.withLock { state in
                guard value > state.fraction else { return [] }
                state.fraction = value
                let subscribers = Array(state.subscribers.values)
                if value >= 1.0 { state.subscribers.removeAll() }
                return subscribers
            }
        }
        for subscriber in subscribers {
            subscriber.yield(value)
            if value >= 1.0 { subscriber.finish() }
        }
    }
}
