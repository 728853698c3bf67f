import Foundation

/// A response body as a sequence of `Data` chunks, in arrival order.
///
/// It can be iterated once. Dropping it unconsumed (or cancelling the consuming task) lets the transport
/// cancel the transfer. A connection that breaks mid-body ends the sequence with an error, never cleanly.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data
    /// The error a transport ends the body with.
    public typealias Failure = any Error

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
    /// - Throws: ``NetworkError/responseTooLarge(limitBytes:)``, or the transport's error.
    public func collect(upTo limit: Int, expectedLength: Int64? = nil) async throws -> Data {
        if let expectedLength, expectedLength > Int64(limit) { throw NetworkError.responseTooLarge(limitBytes: limit) }
        var data = Data()
        if let expectedLength, expectedLength > 0 { data.reserveCapacity(Int(expectedLength)) }
        for try await chunk in chunks {
            guard chunk.count <= limit - data.count else { throw NetworkError.responseTooLarge(limitBytes: limit) }
            data.append(chunk)
        }
        return data
    }

    /// Iterates the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: chunks.makeAsyncIterator())
    }

    /// Iterates the chunks of a ``ResponseBody``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            try await base.next()
        }

        /// The next chunk, staying on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            try await base.next(isolation: actor)
        }
    }
}
