#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Server-sent events whose `data` is JSON, decoded: one `Payload` per event, until the stream ends or an event
/// carries the end sentinel (`[DONE]`, as OpenAI-style chat completion streams send).
///
/// ```swift
/// struct Delta: Decodable, Sendable { let content: String }
/// for try await delta in response.events(decoding: Delta.self, until: "[DONE]") {
///     print(delta.content, terminator: "")
/// }
/// ```
///
/// Events of another type than ``eventType`` (when set) are passed over; an event whose data does not decode
/// throws the decoder's `DecodingError`, and the sequence ends. The sentinel ends it cleanly: what the server sends
/// after it is not read.
public struct DecodedEventSequence<Events: AsyncSequence, Payload: Decodable & Sendable>: AsyncSequence
where Events.Element == ServerSentEvent {
    /// A decoded event.
    public typealias Element = Payload
    /// The events' error, or a `DecodingError`.
    public typealias Failure = any Error

    let events: Events
    let decoder: JSONDecoder
    /// The data that ends the sequence, compared as bytes; `nil`: only the end of the stream does.
    public let sentinel: String?
    /// The only event type decoded (`"message"` for events that name none); `nil`: every type.
    public let eventType: String?

    /// Decodes the data of `events` as `Payload` with `decoder`, until an event's data is `sentinel`.
    public init(
        _ events: Events, of payload: Payload.Type = Payload.self, decoder: JSONDecoder = JSONDecoder(),
        until sentinel: String? = nil, eventType: String? = nil
    ) {
        self.events = events
        self.decoder = decoder
        self.sentinel = sentinel
        self.eventType = eventType
    }

    /// Starts reading the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events.makeAsyncIterator(), sequence: self)
    }

    /// Decodes the events of one pass.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var events: Events.AsyncIterator
        let decoder: JSONDecoder
        let sentinel: String?
        let eventType: String?
        var isDone = false

        init(events: Events.AsyncIterator, sequence: DecodedEventSequence) {
            self.events = events
            self.decoder = sequence.decoder
            self.sentinel = sequence.sentinel
            self.eventType = sequence.eventType
        }

        /// The next payload, or `nil` at the end of the stream or at the sentinel.
        public mutating func next() async throws -> Payload? {
            try await next(isolation: nil)
        }

        /// The next payload, or `nil` at the end, awaiting the events on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Payload? {
            while !isDone, let event = try await events.next(isolation: actor) {
                if let eventType, event.event.utf8.elementsEqual(eventType.utf8) == false { continue }
                if let sentinel, event.data.utf8.elementsEqual(sentinel.utf8) {
                    isDone = true
                    return nil
                }
                do {
                    return try decoder.decode(Payload.self, from: Data(event.data.utf8))
                } catch {
                    isDone = true
                    throw error
                }
            }
            isDone = true
            return nil
        }
    }
}

extension DecodedEventSequence: Sendable where Events: Sendable {}

extension AsyncSequence where Element == ServerSentEvent {
    /// These events' JSON data decoded as `Payload`, until an event's data is `sentinel` (see
    /// ``DecodedEventSequence``).
    public func decoding<Payload: Decodable & Sendable>(
        _ payload: Payload.Type, decoder: JSONDecoder = JSONDecoder(), until sentinel: String? = nil,
        eventType: String? = nil
    ) -> DecodedEventSequence<Self, Payload> {
        DecodedEventSequence(self, of: payload, decoder: decoder, until: sentinel, eventType: eventType)
    }
}
