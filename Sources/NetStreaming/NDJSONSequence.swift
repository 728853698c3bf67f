#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Newline-delimited JSON: one `Decodable` record per non-empty line of a stream of `Data` chunks.
///
/// Lines are split as in ``LineSequence`` (LF or CRLF, a last line without a line break counts, a line longer
/// than `maximumLineLength` throws `StreamingError.lineTooLong(limitBytes:)`); empty lines are
/// skipped. Each record is decoded straight from the bytes of its line (no `String` in between). Every record
/// before a bad line is delivered; the bad line throws the decoder's `DecodingError`, and the sequence ends
/// (`next()` returns `nil` afterwards), as EKNetwork's `ndjson(as:decoder:)` does.
///
/// ```swift
/// for try await item in NDJSONSequence(body, of: SearchEvent.self) {
///     render(item)
/// }
/// ```
public struct NDJSONSequence<Base: AsyncSequence, Item: Decodable & Sendable>: AsyncSequence
where Base.Element == Data {
    /// A decoded record.
    public typealias Element = Item
    /// The base's error, a `DecodingError`, or `StreamingError`.
    public typealias Failure = any Error

    @usableFromInline let base: Base
    @usableFromInline let decoder: JSONDecoder
    /// The longest line accepted, in bytes.
    public let maximumLineLength: Int

    /// Decodes the lines of `base` as `itemType` with `decoder`, accepting lines of up to `maximumLineLength`
    /// bytes.
    @inlinable
    public init(
        _ base: Base,
        of itemType: Item.Type = Item.self,
        decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = LineSplitter.defaultMaximumLineLength
    ) {
        self.base = base
        self.decoder = decoder
        self.maximumLineLength = maximumLineLength
    }

    /// Starts reading the base.
    @inlinable
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: base.makeAsyncIterator(),
            splitter: LineSplitter(maximumLineLength: maximumLineLength),
            decoder: decoder
        )
    }

    /// Decodes the records of one pass over the base.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline var feed: ChunkFeed<Base.AsyncIterator>
        @usableFromInline var splitter: LineSplitter
        @usableFromInline let decoder: JSONDecoder

        @inlinable
        init(base: Base.AsyncIterator, splitter: LineSplitter, decoder: JSONDecoder) {
            self.feed = ChunkFeed(base)
            self.splitter = splitter
            self.decoder = decoder
        }

        /// The next record, or `nil` at the end.
        @inlinable
        public mutating func next() async throws -> Item? {
            try await next(isolation: nil)
        }

        /// The next record, or `nil` at the end, awaiting the base on the caller's actor.
        @inlinable @inline(__always)
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Item? {
            // Records of lines already received come out without an await; the base is awaited only for the
            // next chunk.
            while !feed.isDone {
                do {
                    if let line = try splitter.nextLineData() {
                        if line.isEmpty { continue }
                        return try decoder.decode(Item.self, from: line)
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

extension NDJSONSequence: Sendable where Base: Sendable {}
