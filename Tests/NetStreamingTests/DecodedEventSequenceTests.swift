import Foundation
import NetCore
import NetStreaming
import Testing

/// Typed server-sent events: JSON data decoded per event, ended by a sentinel.
@Suite("Decoded server-sent events")
struct DecodedEventSequenceTests {
    struct Delta: Decodable, Sendable, Equatable {
        let content: String
    }

    private func response(_ text: String) -> StreamingResponse {
        StreamingResponse(statusCode: 200, headers: [:], body: body(text))
    }

    @Test("each event's data decodes; [DONE] ends the sequence and nothing after it is read")
    func sentinel() async throws {
        let stream = response(
            "data: {\"content\":\"Hel\"}\n\ndata: {\"content\":\"lo\"}\n\ndata: [DONE]\n\ndata: {\"content\":\"!\"}\n\n"
        )
        let deltas = try await collect(stream.events(decoding: Delta.self, until: "[DONE]"))
        #expect(deltas == [Delta(content: "Hel"), Delta(content: "lo")])
    }

    @Test("without a sentinel the end of the stream ends it; other event types are passed over when one is named")
    func eventTypes() async throws {
        let stream = response(
            "event: ping\ndata: {}\n\ndata: {\"content\":\"a\"}\n\nevent: delta\ndata: {\"content\":\"b\"}\n\n")
        let all = try await collect(
            stream.events(maximumEventSize: 1 << 16).decoding(Delta.self, eventType: "delta"))
        #expect(all == [Delta(content: "b")])
        let messages = try await collect(response("data: {\"content\":\"a\"}\n\n").events(decoding: Delta.self))
        #expect(messages == [Delta(content: "a")])
    }

    @Test("data that does not decode throws the DecodingError after the payloads before it, and the sequence ends")
    func badData() async throws {
        var iterator = response("data: {\"content\":\"a\"}\n\ndata: not json\n\ndata: {\"content\":\"b\"}\n\n")
            .events(decoding: Delta.self).makeAsyncIterator()
        #expect(try await iterator.next() == Delta(content: "a"))
        await #expect(throws: DecodingError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("the sentinel is compared as bytes, not as Unicode text")
    func sentinelBytes() async throws {
        // "[DONE]" written with a fullwidth D is not the sentinel: it is data, which does not decode.
        let stream = response("data: [\u{FF24}ONE]\n\n")
        await #expect(throws: DecodingError.self) {
            _ = try await collect(stream.events(decoding: Delta.self, until: "[DONE]"))
        }
    }
}
