#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server-sent events of a `text/event-stream` arriving as `Data` chunks, parsed by
/// the WHATWG rules (HTML, "Parsing an event stream").
///
/// The iterator awaits the base only for the next chunk and stays on the caller's actor
/// (`next(isolation:)`). At the end of the stream a block without its closing blank line is discarded; a
/// line or event over `maximumEventSize` throws `StreamingError.lineTooLong(limitBytes:)`. After an
/// error, or the end, `next()` returns `nil`. The iterator's ``AsyncIterator/lastEventID`` and
/// ``AsyncIterator/reconnectionTime`` are what a reconnecting client needs.
///
/// ```swift
/// for try await event in ServerSentEventSequence(body) {
///     print(event.event, event.data)
/// }
/// ```
public struct ServerSentEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A dispatched event.
    public typealias Element = ServerSentEvent
    /// The base's error, or `StreamingError`.
    public typealias Failure = any Error

    @usableFromInline let base: Base
    /// The longest line, and the largest event data, accepted, in bytes.
    public let maximumEventSize: Int
    /// The last event ID a previous connection ended with, if any.
    public let initialLastEventID: String?

    /// Reads the events of `base`.
    /// - Parameters:
    ///   - base: The body's chunks.
    ///   - maximumEventSize: the longest line and the largest event data accepted, in bytes.
    ///   - lastEventID: the last event ID a previous connection ended with, so that events carry it until the
    ///     stream sets another.
    @inlinable
    public init(
        _ base: Base,
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize,
        lastEventID: String? = nil
    ) {
        self.base = base
        self.maximumEventSize = maximumEventSize
        self.initialLastEventID = lastEventID
    }

    /// Starts reading the base.
    @inlinable
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: base.makeAsyncIterator(),
            parser: ServerSentEventParser(maximumEventSize: maximumEventSize, lastEventID: initialLastEventID)
        )
    }

    /// Reads the events of one pass over the base.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline var feed: ChunkFeed<Base.AsyncIterator>
        @usableFromInline var parser: ServerSentEventParser

        @inlinable
        init(base: Base.AsyncIterator, parser: ServerSentEventParser) {
            self.feed = ChunkFeed(base)
            self.parser = parser
        }

        /// The stream's last event ID so far (the value of the last `id` field the stream sent).
        public var lastEventID: String? { parser.lastEventID }
        /// The reconnection time the stream last asked for, if any.
        public var reconnectionTime: Duration? { parser.reconnectionTime }

        /// The next event, or `nil` at the end.
        @inlinable
        public mutating func next() async throws -> ServerSentEvent? {
            try await next(isolation: nil)
        }

        /// The next event, or `nil` at the end, awaiting the base on the caller's actor.
        @inlinable @inline(__always)
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> ServerSentEvent? {
            // Events already received come out without an await; the base is awaited only for the next chunk.
            while !feed.isDone {
                do {
                    if let event = try parser.nextEvent() { return event }
                } catch {
                    feed.fail()
                    throw error
                }
                try await feed.feed(&parser, isolation: actor)
            }
            return nil
        }
    }
}

extension ServerSentEventSequence: Sendable where Base: Sendable {}
