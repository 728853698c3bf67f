import Observation
import NetKitLock

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
///
/// For a request with a body the fraction follows the bytes sent; the last byte sent (``isUploadComplete``) is
/// not the end of the request, which still waits for the server's answer below 1.0. For a request without a body
/// it follows the bytes received. A transport reports both with ``reportSent(_:of:)`` and
/// ``reportReceived(_:of:)``; the engine alone marks the request completed.
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

    /// Which bytes the fraction follows.
    package enum Direction: Sendable {
        /// Bytes sent: a request with a body.
        case upload
        /// Bytes received: a request without a body.
        case download
    }

    private struct State {
        var fraction = 0.0
        var direction: Direction?
        var bytesSent: Int64 = 0
        var totalBytesToSend: Int64?
        var bytesReceived: Int64 = 0
        var totalBytesToReceive: Int64?
        var outcome: Outcome?
        var subscribers: [Int: AsyncStream<Double>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let registrar = ObservationRegistrar()
    private let state = Lock(State())

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

    /// The request body bytes a transport has reported sent.
    public var bytesSent: Int64 { state.withLock { $0.bytesSent } }
    /// The size of the request body, when the transport knows it.
    public var totalBytesToSend: Int64? { state.withLock { $0.totalBytesToSend } }
    /// The response body bytes a transport has reported received.
    public var bytesReceived: Int64 { state.withLock { $0.bytesReceived } }
    /// The size of the response body, when the server declared it.
    public var totalBytesToReceive: Int64? { state.withLock { $0.totalBytesToReceive } }

    /// Whether every byte of a body of known size has been sent. The request is not over then: it still waits for
    /// the answer, and the fraction stays below 1.0 until the engine marks it completed.
    public var isUploadComplete: Bool {
        state.withLock { state in state.totalBytesToSend.map { $0 > 0 && state.bytesSent >= $0 } ?? false }
    }

    /// For transports: `bytes` of the request body have been sent in all, of `total` when known.
    ///
    /// Call it as the body goes out (the counts may only grow). It moves the fraction of a request with a body,
    /// up to just below 1.0: the request completes when the engine has the answer, never here.
    public func reportSent(_ bytes: Int64, of total: Int64?) {
        let fraction: Double? = state.withLock { state in
            state.bytesSent = max(state.bytesSent, bytes)
            if let total, total > 0 { state.totalBytesToSend = total }
            guard state.direction != .download, let total = state.totalBytesToSend else { return nil }
            return Double(state.bytesSent) / Double(total)
        }
        // The last step to 1.0 is the engine's, once the response is in.
        if let fraction { update(to: min(fraction, 0.999)) }
    }

    /// For transports: `bytes` of the response body have been received in all, of `total` when the server
    /// declared it.
    ///
    /// It moves the fraction of a request without a body, up to just below 1.0.
    public func reportReceived(_ bytes: Int64, of total: Int64?) {
        let fraction: Double? = state.withLock { state in
            state.bytesReceived = max(state.bytesReceived, bytes)
            if let total, total > 0 { state.totalBytesToReceive = total }
            guard state.direction == .download, let total = state.totalBytesToReceive else { return nil }
            return Double(state.bytesReceived) / Double(total)
        }
        if let fraction { update(to: min(fraction, 0.999)) }
    }

    /// Says which bytes the fraction follows; the engine sets it from the request before the first attempt. Until
    /// then bytes sent move it, received ones do not.
    package func follow(_ direction: Direction) {
        state.withLock { $0.direction = direction }
    }

    /// Marks the transfer done: exactly 1.0, outcome ``Outcome/completed``.
    package func markFinished() {
        update(to: 1.0)
        end(.completed)
    }

    /// Ends the transfer without success: the value stays where it was, ``updates`` finishes.
    func markEnded(_ outcome: Outcome) {
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
        let subscribers: [AsyncStream<Double>.Continuation] = registrar.withMutation(
            of: self, keyPath: \.fractionCompleted
        ) {
            state.withLock { state in
                guard value > state.fraction, state.outcome == nil else { return [] }
                state.fraction = value
                return Array(state.subscribers.values)
            }
        }
        for subscriber in subscribers { subscriber.yield(value) }
    }
}
