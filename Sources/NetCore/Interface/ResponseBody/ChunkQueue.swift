#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The buffer between a transport that pushes chunks (URLSession's delegate) and the one consumer of a
/// ``ResponseBody``: at most `limit` unread bytes in memory, and beyond them, when `spill` allows, a temporary
/// file.
///
/// A transport that cannot pause its sender (URLSession on Linux) pushes whatever arrives; a consumer that
/// falls behind would let the body pile up in memory. Past `limit` unread bytes in memory the queue writes what
/// arrives to a nameless temporary file, in order, and the consumer reads it back once it has taken what memory
/// holds: memory stays bounded and a healthy stream is never failed for being read slowly. Past the spill's own
/// limit (or past `limit` without a spill) the queue fails loudly with
/// ``StreamingError/bufferLimitExceeded(limitBytes:)``, drops what it held and tells the producer to stop: no
/// data is ever dropped or duplicated silently.
package final class ChunkQueue: Sendable {
    /// Where bytes beyond the memory bound go, and how many of them may wait there.
    package struct Spill: Sendable {
        /// The most unread bytes held in the file.
        package var limit: Int
        /// Where the file is made (it is unlinked at once, so it never shows there).
        package var directory: URL

        package init(limit: Int, directory: URL) {
            self.limit = limit
            self.directory = directory
        }
    }

    private struct State {
        var chunks: [Data] = []
        var head = 0
        var bufferedBytes = 0
        var peakBufferedBytes = 0
        var spillFile: SpillFile?
        var peakSpilledBytes: Int64 = 0
        var waiter: (id: Int, continuation: CheckedContinuation<Data?, any Error>)?
        var nextWaiterID = 0
        var end: Result<Void, any Error>?
        var abandoned = false
        /// When the producer last pushed a chunk (or the queue was made).
        var lastActivity = ContinuousClock.now
        /// Told once when the transfer is over for the producer: ended, failed or abandoned.
        var onOver: (@Sendable () -> Void)?

        /// The action waiting for the transfer to be over, taken out so that it runs once.
        mutating func takeOnOver() -> (@Sendable () -> Void)? {
            defer { onOver = nil }
            return onOver
        }

        var spilledBytes: Int64 { spillFile?.unreadCount ?? 0 }

        /// Drops everything held, the file included.
        mutating func discard() {
            chunks.removeAll()
            head = 0
            bufferedBytes = 0
            spillFile?.close()
            spillFile = nil
        }
    }

    /// The most bytes read back from the spill file at once.
    private static let spillReadSize = 128 * 1024

    private let state = Mutex(State())
    private let limit: Int
    private let spill: Spill?
    private let onAbandon: @Sendable () -> Void

    /// - Parameters:
    ///   - limit: The most unread bytes held in memory; `Int.max` for none.
    ///   - spill: Where bytes beyond `limit` wait; `nil` fails the body past `limit` instead.
    ///   - onAbandon: Called once when the consumer gives up (it stopped iterating, or went away) or a limit is
    ///     passed: the transport cancels the transfer.
    package init(limit: Int, spill: Spill? = nil, onAbandon: @escaping @Sendable () -> Void) {
        self.limit = max(1, limit)
        self.spill = spill.flatMap { $0.limit > 0 ? $0 : nil }
        self.onAbandon = onAbandon
    }

    /// The most unread bytes held in memory at once so far.
    package var peakBufferedBytes: Int { state.withLock { $0.peakBufferedBytes } }

    /// The most unread bytes held in the spill file at once so far.
    package var peakSpilledBytes: Int64 { state.withLock { $0.peakSpilledBytes } }

    // MARK: Producer

    /// Hands `chunk` to the consumer, or buffers it; `false` once the body is over for the consumer (ended,
    /// failed, abandoned, or past the limit now), in which case the producer must stop.
    @discardableResult
    package func push(_ chunk: Data) -> Bool {
        guard !chunk.isEmpty else { return true }
        enum Outcome {
            case delivered(CheckedContinuation<Data?, any Error>)
            case buffered, refused
            /// Past the limit: the body failed; `onOver` is the action that waited for the end.
            case overflow(onOver: (@Sendable () -> Void)?)
        }
        let outcome: Outcome = state.withLock { state in
            guard state.end == nil, !state.abandoned else { return .refused }
            state.lastActivity = .now
            if let waiter = state.waiter {
                state.waiter = nil
                return .delivered(waiter.continuation)
            }
            // Once bytes wait in the file, every later one goes there too: the consumer reads memory first.
            if state.spilledBytes == 0, state.bufferedBytes + chunk.count <= limit {
                state.chunks.append(chunk)
                state.bufferedBytes += chunk.count
                state.peakBufferedBytes = max(state.peakBufferedBytes, state.bufferedBytes)
                return .buffered
            }
            do {
                try Self.spill(chunk, into: &state, spill, memoryLimit: limit)
                return .buffered
            } catch {
                state.discard()
                state.end = .failure(error)
                return .overflow(onOver: state.takeOnOver())
            }
        }
        switch outcome {
        case .delivered(let waiter):
            waiter.resume(returning: chunk)
            return true
        case .buffered:
            return true
        case .refused:
            return false
        case .overflow(let onOver):
            onOver?()
            onAbandon()
            return false
        }
    }

    /// Writes `chunk` to the spill file, making it on first use.
    private static func spill(
        _ chunk: Data, into state: inout State, _ spill: Spill?, memoryLimit: Int
    ) throws {
        guard let spill else { throw StreamingError.bufferLimitExceeded(limitBytes: memoryLimit) }
        guard state.spilledBytes + Int64(chunk.count) <= Int64(spill.limit) else {
            let (total, overflow) = memoryLimit.addingReportingOverflow(spill.limit)
            throw StreamingError.bufferLimitExceeded(limitBytes: overflow ? .max : total)
        }
        if state.spillFile == nil { state.spillFile = try SpillFile(in: spill.directory) }
        try state.spillFile!.append(chunk)
        state.peakSpilledBytes = max(state.peakSpilledBytes, state.spilledBytes)
    }

    /// Ends the body: cleanly when `error` is `nil`. Chunks already pushed are still delivered first.
    package func finish(throwing error: (any Error)? = nil) {
        let (waiter, onOver): (CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?) = state.withLock {
            state in
            guard state.end == nil else { return (nil, nil) }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return (state.waiter?.continuation, state.takeOnOver())
        }
        onOver?()
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// Ends the body now with `error`, dropping what it held, and stops the transfer (a timeout). Does nothing once
    /// the body has ended.
    package func fail(_ error: any Error) {
        let ended: (CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?)? = state.withLock { state in
            guard state.end == nil, !state.abandoned else { return nil }
            state.discard()
            state.end = .failure(error)
            defer { state.waiter = nil }
            return (state.waiter?.continuation, state.takeOnOver())
        }
        guard let (waiter, onOver) = ended else { return }
        onOver?()
        waiter?.resume(throwing: error)
        onAbandon()
    }

    /// When the producer last pushed a chunk.
    package var lastActivity: ContinuousClock.Instant { state.withLock { $0.lastActivity } }

    /// Runs `action` once when the transfer is over for the producer (ended, failed or abandoned); at once when it
    /// is over already.
    package func whenOver(_ action: @escaping @Sendable () -> Void) {
        let over: Bool = state.withLock { state in
            guard state.end == nil, !state.abandoned else { return true }
            state.onOver = action
            return false
        }
        if over { action() }
    }

    // MARK: Consumer

    /// The next chunk; `nil` at the clean end.
    /// - Throws: the transport's error, ``StreamingError/bufferLimitExceeded(limitBytes:)``,
    ///   ``ResponseBodyError/spillFailed(reason:)``, ``ResponseBodyError/concurrentIteration`` while another iterator
    ///   of the same body waits, or `CancellationError` when the consuming task is cancelled.
    package func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Data? {
        // A consumer that fell behind takes what is waiting without setting up a continuation and a cancellation
        // handler per chunk: catching up must cost less than falling behind did.
        let id: Int
        switch state.withLock({ Self.popOrNumberWaiter(&$0) }) {
        case .ready(let ready): return try delivering(ready)
        case .wait(let number): id = number
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let ready: Popped? = state.withLock { state in
                    if let popped = Self.popBuffered(&state) { return popped }
                    switch state.end {
                    case .success?: return .end
                    case .failure(let error)?: return .failed(error)
                    case nil: break
                    }
                    if Task.isCancelled { return .failed(CancellationError()) }
                    // A second iterator would take the first one's place and leave it waiting for ever.
                    guard state.waiter == nil else { return .failed(ResponseBodyError.concurrentIteration) }
                    state.waiter = (id, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: Result { try delivering(ready) }) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(throwing: CancellationError())
            // The consumer is gone for good: stop the transfer now rather than when its body is released.
            abandon()
        }
    }

    /// What the consumer gets without waiting.
    private enum Popped {
        case chunk(Data)
        /// The clean end.
        case end
        /// The body ended with this error (or this iterator cannot wait).
        case failed(any Error)
        /// The spill file could not be read back: the body is over, and the transfer must stop.
        case unreadable(ResponseBodyError)
    }

    private func delivering(_ popped: Popped) throws -> Data? {
        switch popped {
        case .chunk(let chunk):
            return chunk
        case .end:
            return nil
        case .failed(let error):
            throw error
        case .unreadable(let error):
            state.withLock { $0.takeOnOver() }?()
            onAbandon()
            throw error
        }
    }

    /// The oldest unread bytes, or else the number of a new waiter.
    private static func popOrNumberWaiter(_ state: inout State) -> FirstLook {
        if let popped = popBuffered(&state) { return .ready(popped) }
        state.nextWaiterID += 1
        return .wait(number: state.nextWaiterID)
    }

    private enum FirstLook {
        case ready(Popped)
        case wait(number: Int)
    }

    /// The oldest unread bytes, taken out of memory or else the spill file; `nil` when none are waiting. A spill
    /// file that cannot be read back ends the body with its error.
    private static func popBuffered(_ state: inout State) -> Popped? {
        if state.head < state.chunks.count {
            let chunk = state.chunks[state.head]
            state.head += 1
            state.bufferedBytes -= chunk.count
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return .chunk(chunk)
        }
        guard let file = state.spillFile, file.unreadCount > 0 else { return nil }
        do {
            return .chunk(try file.take(upTo: spillReadSize))
        } catch {
            state.discard()
            state.end = .failure(error)
            return .unreadable(error)
        }
    }

    /// The consumer gave up before the end: the buffered chunks are dropped and the transport is told once.
    package func abandon() {
        let (notify, onOver): (Bool, (@Sendable () -> Void)?) = state.withLock { state in
            guard !state.abandoned else { return (false, nil) }
            state.abandoned = true
            state.discard()
            return (state.end == nil, state.takeOnOver())
        }
        onOver?()
        if notify { onAbandon() }
    }

    /// Whether a consumer is waiting for the next chunk.
    package var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Whether the body reached its end (cleanly or not) for the consumer.
    package var isOver: Bool {
        state.withLock { $0.end != nil && $0.head >= $0.chunks.count && $0.spilledBytes == 0 }
    }
}
