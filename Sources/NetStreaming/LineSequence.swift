#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The lines of a stream of `Data` chunks, as `String`s, skipping blank lines.
///
/// It runs over any sequence of chunks: a `ResponseBody` in the app, an array of chunks in a test.
/// Lines are split at LF or CRLF; a last line without a line break counts; invalid UTF-8
/// becomes U+FFFD; a line longer than `maximumLineLength` throws `StreamingError.lineTooLong(limitBytes:)`.
/// Empty lines are skipped, as EKNetwork's `lines()` does; a line of spaces is not empty.
///
/// Each line is cut from the chunk it arrived in; the iterator awaits the base only for the next chunk, and
/// stays on the caller's actor (`next(isolation:)`), so a `@MainActor` loop does not hop per line. After an
/// error, or the end, `next()` returns `nil`.
///
/// ```swift
/// for try await line in LineSequence(body) where line.hasPrefix("data:") {
///     process(line.dropFirst(5))
/// }
/// ```
public struct LineSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A line, without its line break.
    public typealias Element = String
    /// The base's error, or `StreamingError`.
    public typealias Failure = any Error

    @usableFromInline let base: Base
    /// The longest line accepted, in bytes.
    public let maximumLineLength: Int

    /// Reads the lines of `base`, accepting lines of up to `maximumLineLength` bytes.
    @inlinable
    public init(_ base: Base, maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) {
        self.base = base
        self.maximumLineLength = maximumLineLength
    }

    /// Starts reading the base.
    @inlinable
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), splitter: LineSplitter(maximumLineLength: maximumLineLength))
    }

    /// Reads the lines of one pass over the base.
    public struct AsyncIterator: AsyncIteratorProtocol {
        // Inlinable, like the views' other members, so that the caller's module specialises the iteration for
        // its base: one unspecialised generic call per line costs more than finding and decoding the line.
        @usableFromInline var feed: ChunkFeed<Base.AsyncIterator>
        @usableFromInline var splitter: LineSplitter

        @inlinable
        init(base: Base.AsyncIterator, splitter: LineSplitter) {
            self.feed = ChunkFeed(base)
            self.splitter = splitter
        }

        /// The next non-empty line, or `nil` at the end.
        @inlinable
        public mutating func next() async throws -> String? {
            try await next(isolation: nil)
        }

        /// The next non-empty line, or `nil` at the end, awaiting the base on the caller's actor.
        @inlinable @inline(__always)
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> String? {
            // Lines already received come out without an await, inlined into the caller's loop; the base is
            // awaited only for the next chunk.
            while !feed.isDone {
                do {
                    if let line = try splitter.nextLine() {
                        if line.isEmpty { continue }
                        return line
                    }
                } catch {
                    feed.fail()
                    throw error
                }
                try await feed.feed(&splitter, isolation: actor)
            }
            return nil
        }
    }
}

extension LineSequence: Sendable where Base: Sendable {}
