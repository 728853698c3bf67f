#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The buffer between a transport that pushes chunks (URLSession's delegate) and the one consumer of a
/// ``ResponseBody``, bounded in bytes.
///
/// A transport that cannot pause its sender (URLSession on Linux) pushes whatever arrives; a consumer that
/// falls behind would let the body pile up in memory. Past `limit` unread bytes the queue fails loudly with
/// ``StreamingError/bufferLimitExceeded(limitBytes:)``, drops what it held and tells the producer to stop:
/// no data is ever dropped or duplicated silently.
package final class ChunkQueue: Sendable {
    private struct State {
        var chunks: [Data] = []
        var head = 0
        var bufferedBytes = 0
        var peakBufferedBytes = 0
        var waiter: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, any Error>?
        var abandoned = false
    }

    private let state = Mutex(State())
    private let limit: Int
    private let onAbandon: @Sendable () -> Void

    /// - Parameters:
    ///   - limit: The most unread bytes held; `Int.max` for none.
    ///   - onAbandon: Called once when the consumer gives up (it stopped iterating, or went away) or the limit is
    ///     passed: the transport cancels the transfer.
    package init(limit: Int, onAbandon: @escaping @Sendable () -> Void) {
        self.limit = max(1, limit)
        self.onAbandon = onAbandon
    }

    /// The most unread bytes held at once so far.
    package var peakBufferedBytes: Int { state.withLock { $0.peakBufferedBytes } }

    // MARK: Producer

    /// Hands `chunk` to the consumer, or buffers it; `false` once the body is over for the consumer (ended,
    /// failed, abandoned, or past the limit now), in which case the producer must stop.
    @discardableResult
    package func push(_ chunk: Data) -> Bool {
        guard !chunk.isEmpty else { return true }
        enum Outcome {
            case delivered(CheckedContinuation<Data?, any Error>)
            case buffered, refused, overflow
        }
        let outcome: Outcome = state.withLock { state in
            guard state.end == nil, !state.abandoned else { return .refused }
            if let waiter = state.waiter {
                state.waiter = nil
                return .delivered(waiter)
            }
            guard state.bufferedBytes + chunk.count <= limit else {
                state.chunks.removeAll()
                state.head = 0
                state.bufferedBytes = 0
                state.end = .failure(StreamingError.bufferLimitExceeded(limitBytes: limit))
                return .overflow
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            state.peakBufferedBytes = max(state.peakBufferedBytes, state.bufferedBytes)
            return .buffered
        }
        switch outcome {
        case .delivered(let waiter):
            waiter.resume(returning: chunk)
            return true
        case .buffered:
            return true
        case .refused:
            return false
        case .overflow:
            onAbandon()
            return false
        }
    }

    /// Ends the body: cleanly when `error` is `nil`. Chunks already pushed are still delivered first.
    package func finish(throwing error: (any Error)? = nil) {
        let waiter: CheckedContinuation<Data?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    // MARK: Consumer

    /// The next chunk; `nil` at the clean end.
    /// - Throws: the transport's error, ``StreamingError/bufferLimitExceeded(limitBytes:)``, or
    ///   `CancellationError` when the consuming task is cancelled.
    package func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Data? {
        // A consumer that fell behind takes what is waiting without setting up a continuation and a cancellation
        // handler per chunk: catching up must cost less than falling behind did.
        if let chunk = state.withLock({ Self.popBuffered(&$0) }) { return chunk }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let ready: Result<Data?, any Error>? = state.withLock { state in
                    if let chunk = Self.popBuffered(&state) { return .success(chunk) }
                    switch state.end {
                    case .success?: return .success(nil)
                    case .failure(let error)?: return .failure(error)
                    case nil: break
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
            // The consumer is gone for good: stop the transfer now rather than when its body is released.
            abandon()
        }
    }

    /// The oldest unread chunk, taken out of the buffer; `nil` when none is waiting.
    private static func popBuffered(_ state: inout State) -> Data? {
        guard state.head < state.chunks.count else { return nil }
        let chunk = state.chunks[state.head]
        state.head += 1
        state.bufferedBytes -= chunk.count
        if state.head == state.chunks.count {
            state.chunks.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return chunk
    }

    /// The consumer gave up before the end: the buffered chunks are dropped and the transport is told once.
    package func abandon() {
        let notify: Bool = state.withLock { state in
            guard !state.abandoned else { return false }
            state.abandoned = true
            state.chunks.removeAll()
            state.head = 0
            state.bufferedBytes = 0
            return state.end == nil
        }
        if notify { onAbandon() }
    }

    /// Whether the body reached its end (cleanly or not) for the consumer.
    package var isOver: Bool { state.withLock { $0.end != nil && $0.head >= $0.chunks.count } }
}
