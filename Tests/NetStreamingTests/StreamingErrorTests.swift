import Foundation
import NetCore
import Testing

@Suite("StreamingError")
struct StreamingErrorTests {
    @Test("every case has a readable description, also as localizedDescription")
    func descriptions() {
        let cases: [(StreamingError, String)] = [
            (.invalidResponse, "The response was not an HTTP response."),
            (.errorPayloadTooLarge(limitBytes: 1_048_576), "The error response's body exceeded 1048576 bytes."),
            (
                .bufferLimitExceeded(limitBytes: 10),
                "The stream's consumer fell behind: more than 10 bytes were waiting to be read."
            ),
            (.lineTooLong(limitBytes: 5), "A line or event in the stream exceeded 5 bytes."),
            (
                .unexpectedContentType("text/html"),
                "Expected a text/event-stream response, got Content-Type \"text/html\"."
            ),
            (.unexpectedContentType(nil), "Expected a text/event-stream response, got no Content-Type."),
        ]
        for (error, text) in cases {
            #expect(error.description == text)
            #expect(error.errorDescription == text)
            #expect(error.localizedDescription == text)
        }
    }

    @Test("a Content-Type with control characters is escaped in the description")
    func escapedContentType() {
        #expect(StreamingError.unexpectedContentType("a\r\nb").description.contains("a\\r\\nb"))
    }

    @Test("cases compare by their values")
    func equality() {
        #expect(StreamingError.lineTooLong(limitBytes: 1) == .lineTooLong(limitBytes: 1))
        #expect(StreamingError.lineTooLong(limitBytes: 1) != .bufferLimitExceeded(limitBytes: 1))
        #expect(StreamingError.unexpectedContentType(nil) != .unexpectedContentType(""))
    }
}
