#if AsyncHTTPClient
import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NIOCore
import NIOFoundationCompat
import NetKitLock

/// Reads an AsyncHTTPClient response body ahead of its consumer, into at most ``bufferLimit`` bytes, small buffers
/// joined into pieces: what ``ResponseChunks`` hands over.
///
/// AsyncHTTPClient yields one buffer per piece of the wire (a chunk of a chunked body), however small: a server that
/// sends a million one-byte chunks would otherwise cost the consumer a million rounds through NetKit's stages (and
/// their timers). Here a task takes the buffers as they come; one of ``ownPieceSize`` bytes or more goes to the
/// consumer as it is, without a copy, smaller ones are copied into a piece of up to ``joinedPieceSize`` bytes; the
/// consumer takes one piece per read. Once ``bufferLimit`` bytes wait unread the task stops taking buffers, so
/// AsyncHTTPClient stops reading from the socket and the server is held back: memory stays within the limit (plus
/// AsyncHTTPClient's own read-ahead) whatever the size of the chunks.
///
/// Started by the first read; ``close()`` (when the consumer's iterator goes away) stops the task, which drops
/// AsyncHTTPClient's iterator and so cancels the transfer.
final class BodyPump: Sendable {
    /// 256 KiB: the most unread bytes held.
    static let bufferLimit = 256 * 1024
    /// 16 KiB: buffers from this size on are handed over as they are.
    static let ownPieceSize = 16 * 1024
    /// 64 KiB: the most bytes small buffers are joined into.
    static let joinedPieceSize = 64 * 1024

    private struct State {
        var body: HTTPClientResponse.Body?
        /// Unread pieces from `head` on.
        var pieces: [Data] = []
        var head = 0
        /// Whether the last piece takes more small buffers.
        var lastIsOpen = false
        var bytes = 0
        /// The most unread bytes held at once.
        var mostHeld = 0
        /// How the body ended, once it has.
        var end: Result<Void, any Error>?
        var consumer: CheckedContinuation<Void, Never>?
        var producer: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        var isClosed = false
    }

    private let state: Lock<State>
    private let progress: NetworkProgress?
    private let expectedLength: Int64?
    private let idleTimeout: Duration?
    private let authority: String
    /// Keeps the transport's own client alive while the body is read.
    private let keepAlive: OwnedClient?
    /// Called each time the reading task stops because ``bufferLimit`` bytes wait unread (for tests).
    private let waitsForRoom: (@Sendable () -> Void)?

    init(
        body: HTTPClientResponse.Body, progress: NetworkProgress?, expectedLength: Int64?, idleTimeout: Duration?,
        authority: String, keepAlive: OwnedClient?, waitsForRoom: (@Sendable () -> Void)? = nil
    ) {
        self.state = Lock(State(body: body))
        self.progress = progress
        self.expectedLength = expectedLength
        self.idleTimeout = idleTimeout
        self.authority = authority
        self.keepAlive = keepAlive
        self.waitsForRoom = waitsForRoom
    }

    /// The most unread bytes the pump has held at once: below ``bufferLimit`` plus the buffer that reached it (one
    /// socket read at most; SwiftNIO reads up to 64 KiB at a time by default).
    var mostHeld: Int { state.withLock { $0.mostHeld } }

    /// The next piece of the body, or `nil` at its end.
    /// - Throws: the body's error, translated (``TransportErrorTranslation``); `CancellationError` when the calling
    ///   task is cancelled.
    func next() async throws -> Data? {
        start()
        while true {
            enum Step {
                case piece(Data, CheckedContinuation<Void, Never>?)
                case end(Result<Void, any Error>)
                case wait
            }
            let step = state.withLock { state -> Step in
                if state.head < state.pieces.count {
                    let piece = state.pieces[state.head]
                    state.pieces[state.head] = Data()
                    state.head += 1
                    if state.head == state.pieces.count {
                        state.pieces.removeAll(keepingCapacity: true)
                        state.head = 0
                        state.lastIsOpen = false
                    } else if state.head >= 64 {
                        // A consumer that always lags a piece behind never empties the list: the read ones go.
                        state.pieces.removeFirst(state.head)
                        state.head = 0
                    }
                    state.bytes -= piece.count
                    let producer = state.bytes < Self.bufferLimit ? state.producer : nil
                    if producer != nil { state.producer = nil }
                    return .piece(piece, producer)
                }
                if let end = state.end { return .end(end) }
                return .wait
            }
            switch step {
            case .piece(let piece, let producer):
                producer?.resume()
                return piece
            case .end(let end):
                try end.get()
                return nil
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (consumer: CheckedContinuation<Void, Never>) in
                        let waits = state.withLock { state in
                            guard state.head == state.pieces.count, state.end == nil, !Task.isCancelled else {
                                return false
                            }
                            state.consumer = consumer
                            return true
                        }
                        if !waits { consumer.resume() }
                    }
                } onCancel: {
                    state.withLock { state in
                        defer { state.consumer = nil }
                        return state.consumer
                    }?.resume()
                }
                try Task.checkCancellation()
            }
        }
    }

    /// Stops reading: the task ends, AsyncHTTPClient's iterator is dropped (which cancels the transfer), and what
    /// was read is let go. Idempotent.
    func close() {
        let (task, producer, consumer) = state.withLock { state in
            state.isClosed = true
            state.body = nil
            state.pieces = []
            state.head = 0
            state.bytes = 0
            let taken = (state.task, state.producer, state.consumer)
            state.producer = nil
            state.consumer = nil
            return taken
        }
        task?.cancel()
        producer?.resume()
        consumer?.resume()
    }

    /// Starts the reading task, on the first read.
    private func start() {
        let body = state.withLock { state in
            defer { state.body = nil }
            return state.isClosed ? nil : state.body
        }
        guard let body else { return }
        let task = Task { await self.run(body) }
        let closedMeanwhile = state.withLock { state in
            state.task = task
            return state.isClosed
        }
        if closedMeanwhile { task.cancel() }
    }

    private func run(_ body: HTTPClientResponse.Body) async {
        var iterator = body.makeAsyncIterator()
        let wait = BodyRead.waiter(for: idleTimeout)
        var received: Int64 = 0
        do {
            // Each round takes a buffer or ends; AsyncHTTPClient yields empty buffers rarely, if ever.
            while let buffer = try await BodyRead.next(&iterator, within: idleTimeout, using: wait) {
                guard buffer.readableBytes > 0 else { continue }
                if let progress {
                    received += Int64(buffer.readableBytes)
                    progress.reportReceived(received, of: expectedLength)
                }
                guard await deliver(buffer) else { return }
            }
            finish(.success(()))
        } catch {
            finish(
                .failure(
                    TransportErrorTranslation.translate(
                        error, phase: .body, host: HeadConversion.host(ofAuthority: authority), taskIsCancelled: false)
                ))
        }
    }

    /// Queues a buffer for the consumer, then waits while ``bufferLimit`` bytes are unread; `false` once closed.
    private func deliver(_ buffer: ByteBuffer) async -> Bool {
        let (accepted, consumer, full) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, Bool) in
            guard !state.isClosed else { return (false, nil, false) }
            let count = buffer.readableBytes
            if count >= Self.ownPieceSize {
                state.pieces.append(Data(buffer: buffer, byteTransferStrategy: .automatic))
                state.lastIsOpen = false
            } else if state.lastIsOpen, let last = state.pieces.indices.last,
                state.pieces[last].count + count <= Self.joinedPieceSize
            {
                state.pieces[last].append(contentsOf: buffer.readableBytesView)
            } else {
                state.pieces.append(Data(buffer.readableBytesView))
                state.lastIsOpen = true
            }
            state.bytes += count
            state.mostHeld = max(state.mostHeld, state.bytes)
            let consumer = state.consumer
            state.consumer = nil
            return (true, consumer, state.bytes >= Self.bufferLimit)
        }
        consumer?.resume()
        guard accepted else { return false }
        guard full else { return true }
        await withCheckedContinuation { (producer: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state in
                guard state.bytes >= Self.bufferLimit, !state.isClosed else { return false }
                state.producer = producer
                return true
            }
            if waits { waitsForRoom?() } else { producer.resume() }
        }
        return state.withLock { !$0.isClosed }
    }

    private func finish(_ end: Result<Void, any Error>) {
        let consumer = state.withLock { state in
            state.end = end
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume()
    }
}
#endif
