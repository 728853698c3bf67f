import Foundation

/// A response body as a sequence of `Data` chunks, in arrival order.
///
/// It can be iterated once. Dropping it unconsumed (or cancelling the consuming task) lets the transport
/// cancel the transfer. A connection that breaks mid-body ends the sequence with an error, never cleanly, and
/// a body cut short because the consuming task was cancelled ends with `CancellationError`, never as if complete.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data
    /// The error a transport ends the body with.
    public typealias Failure = any Error

    /// The most memory reserved up front for a body whose length the server declares; beyond it the buffer
    /// grows as bytes arrive, so a lying `Content-Length` cannot make NetKit allocate.
    public static let maximumUpfrontReservation = 256 * 1024

    private let chunks: AsyncThrowingStream<Data, any Error>

    /// Wraps a stream of chunks produced by a transport.
    public init(_ chunks: AsyncThrowingStream<Data, any Error>) {
        self.chunks = chunks
    }

    /// A body that is already complete in memory.
    public init(data: Data) {
        self.chunks = AsyncThrowingStream { continuation in
            if !data.isEmpty { continuation.yield(data) }
            continuation.finish()
        }
    }

    /// An empty body.
    public static var empty: ResponseBody { ResponseBody(data: Data()) }

    /// Collects the whole body, failing once it grows past `limit` bytes.
    /// - Parameter expectedLength: The declared length, used only to reserve memory (at most
    ///   ``maximumUpfrontReservation`` bytes).
    /// - Throws: ``NetworkError/responseTooLarge(limitBytes:)``, `CancellationError`, or the transport's error.
    public func collect(upTo limit: Int, expectedLength: Int64? = nil) async throws -> Data {
        var data = Data()
        if let expectedLength, expectedLength > 0 {
            data.reserveCapacity(Int(Swift.min(expectedLength, Int64(Swift.min(limit, Self.maximumUpfrontReservation)))))
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

    /// Iterates the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: chunks.makeAsyncIterator())
    }

    /// Iterates the chunks of a ``ResponseBody``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: `CancellationError` when the consuming task was cancelled before the body ended.
        public mutating func next() async throws -> Data? {
            try await next(isolation: nil)
        }

        /// The next chunk, staying on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            do {
                guard let chunk = try await base.next(isolation: actor) else {
                    // A stream ends with nil when its consumer is cancelled: that is not the end of the body.
                    if Task.isCancelled { throw CancellationError() }
                    return nil
                }
                return chunk
            } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
                throw CancellationError()
            }
        }
    }
}
