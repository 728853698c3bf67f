#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A response whose body is read as it arrives: NDJSON, server-sent events, chunked logs or inference output.
///
/// EKNetwork's `StreamingResponse`, with the body as chunks. ``chunks`` is the body as `Data` chunks in arrival
/// order; ``bytes``, ``lines(maximumLineLength:)``, ``ndjson(as:decoder:maximumLineLength:)`` and
/// ``events(maximumEventSize:lastEventID:)`` are views of those chunks that scan whole buffers, never one byte per
/// async step, and stay on the caller's actor.
///
/// The body can be iterated once, through one view: pick one and read it to the end (or stop early). A second
/// pass, or a second view, sees only what the first left, usually nothing. Cancelling the surrounding task
/// ends the view and lets the transport cancel the transfer; breaking out of the loop does so once the response
/// and its views are released (the response holds the body).
///
/// ```swift
/// let response = try await manager.stream(PlayerSearchRequest(query: "Bobr"), accessToken: nil)
/// for try await item in response.ndjson(as: SearchEvent.self) {
///     handle(item)
///     if case .end = item { break }
/// }
/// ```
public struct StreamingResponse: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers (repeated names joined, see `HTTPHeaderFields.dictionary`).
    public let headers: [String: String]
    /// The response's header fields, repeated ones apart.
    public let headerFields: HTTPHeaderFields
    /// The body as `Data` chunks, in arrival order, as the transport delivered them.
    public let chunks: ResponseBody

    /// Creates a response over a body of chunks (what a transport, or a stub transport, delivers).
    public init(statusCode: Int, headers: [String: String], body: ResponseBody) {
        self.statusCode = statusCode
        self.headers = headers
        // Headers a caller made are kept as given; ones it could not have sent are left out of the fields.
        self.headerFields = (try? HTTPHeaderFields(headers)) ?? HTTPHeaderFields()
        self.chunks = body
    }

    /// Creates a response from a transport's head and body.
    public init(head: HTTPResponseHead, body: ResponseBody) {
        self.statusCode = head.statusCode
        self.headers = head.headerFields.dictionary
        self.headerFields = head.headerFields
        self.chunks = body
    }

    /// Creates a response from a stream of single bytes, for mocks written against EKNetwork.
    ///
    /// The bytes are gathered into chunks by a task that starts when the body is first read: a reader that
    /// waits gets each byte as soon as it arrives, a reader that falls behind gets everything buffered at
    /// once (at most 64 KiB; then the task waits for the reader). The views above therefore never see one
    /// element per byte, but the source stream itself still costs one async step per byte: prefer
    /// ``init(statusCode:headers:body:)`` with `Data` chunks where you can.
    public init(statusCode: Int, headers: [String: String], bytes: AsyncThrowingStream<UInt8, any Error>) {
        let chunker = ByteStreamChunker(bytes)
        self.init(
            statusCode: statusCode,
            headers: headers,
            body: ResponseBody(AsyncThrowingStream(unfolding: { try await chunker.next() }))
        )
    }

    /// The raw octets, one `UInt8` per element, in arrival order.
    ///
    /// Derived from ``chunks`` when used: each byte is read from its chunk synchronously, the base is awaited
    /// only for the next chunk. Use it for code written against EKNetwork's `bytes`; for lines, NDJSON and
    /// events use the views made for them.
    public var bytes: ByteSequence<ResponseBody> {
        ByteSequence(chunks)
    }

    /// UTF-8 lines split on LF, a trailing CR removed (CRLF-aware), blank lines skipped; resilient to
    /// multi-byte characters split across chunks.
    ///
    /// Invalid UTF-8 becomes U+FFFD. A line longer than `maximumLineLength` bytes ends the sequence with
    /// `StreamingError.lineTooLong(limitBytes:)`. See ``LineSequence``.
    public func lines(maximumLineLength: Int = LineSplitter.defaultMaximumLineLength) -> LineSequence<ResponseBody> {
        LineSequence(chunks, maximumLineLength: maximumLineLength)
    }

    /// One `Decodable` record per non-empty line, decoded with `decoder`. A bad line throws its
    /// `DecodingError` (after every record before it) and finishes the sequence.
    ///
    /// A line longer than `maximumLineLength` bytes ends the sequence with
    /// `StreamingError.lineTooLong(limitBytes:)`. See ``NDJSONSequence``.
    public func ndjson<Item: Decodable & Sendable>(
        as itemType: Item.Type,
        decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = LineSplitter.defaultMaximumLineLength
    ) -> NDJSONSequence<ResponseBody, Item> {
        NDJSONSequence(chunks, of: itemType, decoder: decoder, maximumLineLength: maximumLineLength)
    }

    /// The body as server-sent events, parsed by the WHATWG rules (HTML, "Parsing an event stream").
    ///
    /// It reads one connection; it does not check the `Content-Type` nor reconnect. A line or an event's data
    /// over `maximumEventSize` bytes ends the sequence with `StreamingError.lineTooLong(limitBytes:)`.
    /// - Parameters:
    ///   - maximumEventSize: The longest line and the largest event data accepted, in bytes.
    ///   - lastEventID: the last event ID a previous connection ended with, so that events carry it
    ///     until the stream sets another.
    public func events(
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize,
        lastEventID: String? = nil
    ) -> ServerSentEventSequence<ResponseBody> {
        ServerSentEventSequence(chunks, maximumEventSize: maximumEventSize, lastEventID: lastEventID)
    }

    /// The body as server-sent events whose JSON data decodes as `Payload`, one per event, until an event's data is
    /// `sentinel` (`"[DONE]"` for OpenAI-style streams) or the stream ends. See ``DecodedEventSequence``.
    /// - Parameters:
    ///   - payload: The type each event's data decodes as.
    ///   - decoder: The decoder of each event's data.
    ///   - sentinel: The data that ends the sequence cleanly; `nil`: only the end of the stream does.
    ///   - eventType: The only event type decoded; `nil`: every type.
    ///   - maximumEventSize: The longest line and the largest event data accepted, in bytes.
    public func events<Payload: Decodable & Sendable>(
        decoding payload: Payload.Type,
        decoder: JSONDecoder = JSONDecoder(),
        until sentinel: String? = nil,
        eventType: String? = nil,
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize
    ) -> DecodedEventSequence<ServerSentEventSequence<ResponseBody>, Payload> {
        events(maximumEventSize: maximumEventSize).decoding(
            payload, decoder: decoder, until: sentinel, eventType: eventType)
    }
}

extension StreamingResponse: CustomReflectable {
    /// The status, the header fields (the values of credentials such as `Set-Cookie` hidden) and the body.
    public var customMirror: Mirror {
        Mirror(self, children: ["statusCode": statusCode, "headerFields": headerFields, "chunks": chunks])
    }
}
