#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A response body as a sequence of `Data` chunks, in arrival order.
///
/// It can be iterated once. A connection that breaks mid-body ends the sequence with an error, never cleanly,
/// and a body cut short because the consuming task was cancelled ends with `CancellationError`. A consumer that
/// stops early — it breaks out of its loop, or drops the body unread — lets the transport cancel the transfer
/// and close the connection as soon as the iterator (or the last copy of an unread body) goes away.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data
    /// The error a transport ends the body with.
    public typealias Failure = any Error

    /// The most memory reserved up front for a body whose length the server declares; beyond it the buffer
    /// grows as bytes arrive, so a lying `Content-Length` cannot make NetKit allocate.
    public static let maximumUpfrontReservation = 256 * 1024

    // No case holds an `AsyncThrowingStream` as it is: that type is not frozen, and a body holding one would have a
    // size known only at run time, which every response, exchange and async frame that holds a body pays for (see
    // `MonotonicInstant`). A stream is held as any other sequence.
    private enum Source: Sendable {
        case data(Data)
        case queue(ChunkQueue)
        case sequence(any AsyncSequence<Data, any Error> & Sendable)
    }

    private let source: Source
    private let abandonment: Abandonment?
    /// How the consumer sees the error the body ends with.
    private var presentation = ErrorPresentation.native
    /// Whether a cancelled consumer stops the transfer but leaves what arrived for the next one
    /// (``keepingArrivals()``).
    private var keepsArrivals = false

    /// Wraps a stream of chunks produced by a transport (it ends as the stream ends).
    public init(_ chunks: AsyncThrowingStream<Data, any Error>) {
        self.source = .sequence(chunks)
        self.abandonment = nil
    }

    /// Wraps any sequence of chunks — a transport's own body type, with backpressure if it has it.
    /// - Parameters:
    ///   - chunks: The body's pieces, in order.
    ///   - onAbandon: Called once if the consumer stops before the end, so the transport can cancel.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, onAbandon: (@Sendable () -> Void)? = nil)
    where Chunks.Element == Data, Chunks.Failure == any Error {
        self.source = .sequence(chunks)
        self.abandonment = onAbandon.map(Abandonment.init)
    }

    /// A body fed by a transport that pushes chunks, buffering at most `bufferLimit` unread bytes.
    ///
    /// Past the limit the body fails with ``StreamingError/bufferLimitExceeded(limitBytes:)`` and `onAbandon`
    /// runs; it also runs when the consumer stops early. Use the returned ``Writer`` to push chunks and end the
    /// body.
    public static func makeBuffered(
        bufferLimit: Int = .max,
        onAbandon: @escaping @Sendable () -> Void
    ) -> (body: ResponseBody, writer: Writer) {
        let queue = ChunkQueue(limit: bufferLimit, onAbandon: onAbandon)
        return (ResponseBody(queue: queue), Writer(queue: queue))
    }

    /// A body fed by a transport that pushes chunks, holding at most `bufferLimit` unread bytes in memory and up to
    /// `spillLimit` more in a temporary file in `spillDirectory`.
    ///
    /// For a transport that cannot pause its sender: a consumer that falls behind costs disk, not memory, and is
    /// not failed for being slow. The file has no name (it is unlinked as soon as it is made) and is closed when the
    /// body ends or is abandoned. Past both limits the body fails with
    /// ``StreamingError/bufferLimitExceeded(limitBytes:)``; a file that cannot be made, written or read fails it
    /// with ``ResponseBodyError/spillFailed(reason:)``. Either way `onAbandon` runs.
    public static func makeBuffered(
        bufferLimit: Int,
        spillLimit: Int,
        spillDirectory: URL,
        onAbandon: @escaping @Sendable () -> Void
    ) -> (body: ResponseBody, writer: Writer) {
        let queue = ChunkQueue(
            limit: bufferLimit, spill: ChunkQueue.Spill(limit: spillLimit, directory: spillDirectory),
            onAbandon: onAbandon)
        return (ResponseBody(queue: queue), Writer(queue: queue))
    }

    /// A body fed by a transport that pushes chunks, holding at most `bufferLimit` unread bytes in memory and the rest
    /// as `spill` says.
    package static func makeBuffered(
        bufferLimit: Int, spill: ChunkQueue.Spill, onAbandon: @escaping @Sendable () -> Void
    ) -> (body: ResponseBody, writer: Writer) {
        let queue = ChunkQueue(limit: bufferLimit, spill: spill, onAbandon: onAbandon)
        return (ResponseBody(queue: queue), Writer(queue: queue))
    }

    private init(queue: ChunkQueue) {
        self.source = .queue(queue)
        self.abandonment = Abandonment { queue.abandon() }
    }

    /// A body that is already complete in memory.
    public init(data: Data) {
        self.source = .data(data)
        self.abandonment = nil
    }

    /// An empty body.
    public static var empty: ResponseBody { ResponseBody(data: Data()) }

    /// The whole body, when it was complete in memory from the start.
    public var bufferedData: Data? {
        if case .data(let data) = source { data } else { nil }
    }

    /// Collects the whole body, failing once it grows past `limit` bytes.
    /// - Parameters:
    ///   - limit: The most bytes kept.
    ///   - expectedLength: The declared length, used only to reserve memory (at most
    ///     ``maximumUpfrontReservation`` bytes).
    /// - Throws: ``NetworkError/responseTooLarge(limitBytes:)``, `CancellationError`, or the transport's error.
    public func collect(upTo limit: Int, expectedLength: @autoclosure () -> Int64? = nil) async throws -> Data {
        if let data = bufferedData {
            guard data.count <= limit else { throw NetworkError.responseTooLarge(limitBytes: limit) }
            return data
        }
        var data = Data()
        if let expectedLength = expectedLength(), expectedLength > 0 {
            data.reserveCapacity(
                Int(Swift.min(expectedLength, Int64(Swift.min(limit, Self.maximumUpfrontReservation)))))
        }
        for try await chunk in self {
            guard chunk.count <= limit - data.count else { throw NetworkError.responseTooLarge(limitBytes: limit) }
            data.append(chunk)
        }
        return data
    }

    /// Collects at most `limit` bytes; a longer body is cut there (the rest is not read) and reported as truncated.
    /// - Throws: `CancellationError`, or the transport's error.
    public func collectPrefix(upTo limit: Int) async throws -> (data: Data, isTruncated: Bool) {
        var data = Data()
        for try await chunk in self {
            let room = limit - data.count
            if chunk.count > room {
                data.append(chunk.prefix(room))
                return (data, true)
            }
            data.append(chunk)
        }
        return (data, false)
    }

    /// Runs `action` once a pushed body's transfer is over for the transport (ended, failed past a limit, or
    /// abandoned), without reading it: tests wait on it. At once for any other body.
    package func whenTransferOver(_ action: @escaping @Sendable () -> Void) {
        if case .queue(let queue) = source { queue.whenOver(action) } else { action() }
    }

    /// The same body, ended with ``TransportError/Kind/timedOut`` (and its transfer stopped) once `timeouts` run
    /// out: the deadline passes, or no chunk comes for the idle timeout.
    ///
    /// A body fed by a transport that pushes (a ``Writer``) is watched by one timer, which costs nothing per
    /// chunk; any other body races each wait for a chunk against the time left.
    package func bounded(by timeouts: BodyTimeouts) -> ResponseBody {
        guard !timeouts.isEmpty else { return self }
        switch source {
        case .data:
            return self
        case .queue(let queue):
            let watchdog = Task { await Self.watch(queue, timeouts) }
            queue.whenOver { watchdog.cancel() }
            return self
        case .sequence:
            var bounded = ResponseBody(TimedChunks(base: presenting(.native), timeouts: timeouts))
            bounded.presentation = presentation
            return bounded
        }
    }

    /// The same body, ended with ``NetworkError/responseTooLarge(limitBytes:)`` once more than `limit` bytes have
    /// come (the chunk that passes the limit is not handed over; the consumer leaving its loop stops the transfer).
    package func limited(to limit: Int) -> ResponseBody {
        if limit == .max { return self }
        if let data = bufferedData, data.count <= limit { return self }
        var limited = ResponseBody(LimitedChunks(base: presenting(.native), limit: Swift.max(0, limit)))
        limited.presentation = presentation
        return limited
    }

    /// Stops the transfer now, as its consumer going away would: for a wrapper that ends the body early
    /// (``LimitedChunks``) while the caller still holds it.
    func abandon() {
        abandonment?.fire()
    }

    /// Fails `queue` once `timeouts` run out; returns when it has, or when cancelled (the transfer is over).
    private static func watch(_ queue: ChunkQueue, _ timeouts: BodyTimeouts) async {
        while let wake = timeouts.nextCheck(lastActivity: queue.lastActivity) {
            do { try await Task.sleep(until: wake, clock: .continuous) } catch { return }
            if let error = timeouts.expiry(at: .now, lastActivity: queue.lastActivity) {
                queue.fail(error)
                return
            }
        }
    }

    /// This body, read so that a consumer whose task is cancelled stops the transfer (once) but drops nothing: what
    /// the transport's buffer holds, and what still arrives until the transport has stopped, stays for a new iterator
    /// to read to the end. A download writes those bytes rather than ask the server for them again: URLSession on
    /// Linux cannot stop a fast transfer until its work queue gets to the cancellation, and reads on meanwhile.
    ///
    /// `nil` for a body with nothing to keep: only one the transport pushes into NetKit's buffer has such bytes.
    package func keepingArrivals() -> ResponseBody? {
        guard case .queue = source else { return nil }
        var body = self
        body.keepsArrivals = true
        return body
    }

    /// The same body, its errors shown as `presentation` says (EKNetwork's facade shows transport failures as
    /// `URLError`).
    package func presenting(_ presentation: ErrorPresentation) -> ResponseBody {
        var body = self
        body.presentation = presentation
        return body
    }

    /// Iterates the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        let base: AsyncIterator.Base =
            switch source {
            case .data(let data): .data(data.isEmpty ? nil : data)
            case .queue(let queue): .queue(queue)
            case .sequence(let sequence): .sequence(sequence.makeAsyncIterator())
            }
        return AsyncIterator(
            base: base, guardian: abandonment.map(IterationGuard.init), presentation: presentation,
            keepsArrivals: keepsArrivals)
    }

    /// Iterates the chunks of a ``ResponseBody``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        enum Base {
            case data(Data?)
            case queue(ChunkQueue)
            case sequence(any AsyncIteratorProtocol<Data, any Error>)
        }

        var base: Base
        let guardian: IterationGuard?
        let presentation: ErrorPresentation
        let keepsArrivals: Bool

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: `CancellationError` when the consuming task was cancelled before the body ended.
        public mutating func next() async throws -> Data? {
            try await next(isolation: nil)
        }

        /// The next chunk, staying on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            do {
                let chunk: Data?
                switch base {
                case .data(let data):
                    base = .data(nil)
                    chunk = data
                case .queue(let queue):
                    // A consumer that keeps up never waits, so it would never see its cancellation inside the queue.
                    if keepsArrivals, Task.isCancelled { throw CancellationError() }
                    chunk = try await queue.next(isolation: actor, keepingArrivals: keepsArrivals)
                case .sequence(var iterator):
                    chunk = try await iterator.next(isolation: actor)
                    base = .sequence(iterator)
                }
                guard let chunk else {
                    // A stream ends with nil when its consumer is cancelled: that is not the end of the body.
                    if Task.isCancelled { throw CancellationError() }
                    guardian?.reachedEnd()
                    return nil
                }
                return chunk
            } catch let error as ResponseBodyError where error.kind == .concurrentIteration {
                // The other iterator still reads the body: this one neither ends nor abandons it.
                throw presentation.present(error)
            } catch let error
                where Task.isCancelled && (error is CancellationError || (error as? TransportError)?.kind == .cancelled)
            {
                // The consumer was cancelled: the transfer must stop now, not when the body is released.
                if keepsArrivals, case .queue(let queue) = base {
                    // What arrived stays for the next iterator, which reads to the end once the transfer stops.
                    guardian?.reachedEnd()
                    queue.stopProducer()
                } else {
                    guardian?.abandon()
                }
                throw CancellationError()
            } catch {
                guardian?.reachedEnd()
                throw presentation.present(error)
            }
        }
    }

    /// The body of a transport that pushes chunks: what the transport holds while the consumer reads.
    public struct Writer: Sendable {
        fileprivate let queue: ChunkQueue

        /// Hands a chunk to the consumer; `false` once the consumer is gone or the buffer limit was passed, and
        /// the transport must stop (it has been told through `onAbandon`).
        @discardableResult
        public func yield(_ chunk: Data) -> Bool {
            queue.push(chunk)
        }

        /// Ends the body: cleanly when `error` is `nil`, otherwise with `error` after the chunks already yielded.
        public func finish(throwing error: (any Error)? = nil) {
            queue.finish(throwing: error)
        }

        /// The most unread bytes the body held in memory at once.
        public var peakBufferedBytes: Int { queue.peakBufferedBytes }

        /// The most unread bytes the body held in its temporary file at once (0 when it never needed one).
        public var peakSpilledBytes: Int64 { queue.peakSpilledBytes }

        /// Whether the consumer is waiting for the next chunk.
        package var hasWaitingConsumer: Bool { queue.hasWaiter }

        /// Returns once the spill file's writer has nothing left to do (what was read back has been given back).
        package func spillSettled() async { await queue.spillSettled() }
    }
}
