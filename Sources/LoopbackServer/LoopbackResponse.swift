import Foundation

/// What the handler of a ``LoopbackServer`` answers with.
///
/// The server owns the message framing: `Content-Length`, `Transfer-Encoding` and `Connection`
/// headers set here are replaced by the ones it computes (use ``LoopbackFault`` to lie on purpose).
/// A `Connection: close` header is honoured as if ``LoopbackFault/closeAfterResponse`` were given.
package struct LoopbackResponse: Sendable {
    /// The status code; 100–199 are not valid final statuses and are sent as 500.
    package var status: Int
    /// Extra header fields, written in this order after the status line.
    package var headers: [(name: String, value: String)]
    /// The body; never sent for HEAD requests or 204/304 statuses.
    package var body: Data
    /// Misbehaviour to apply while sending this response.
    package var faults: [LoopbackFault]
    /// Set by ``streamed(status:headers:framing:faults:producer:)``; `body` is then unused.
    var streamedBody: StreamedBody?

    /// A body produced while it is being sent.
    struct StreamedBody: Sendable {
        let framing: LoopbackBodyFraming
        let producer: @Sendable (LoopbackBodyWriter) -> Void
    }

    /// Creates a response.
    package init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        faults: [LoopbackFault] = []
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.faults = faults
    }

    /// A response whose body is `text` encoded as UTF-8, with `Content-Type: application/json`.
    package static func json(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(
            status: status,
            headers: [(name: "Content-Type", value: "application/json")],
            body: Data(text.utf8)
        )
    }

    /// A response whose body is `text` encoded as UTF-8, with `Content-Type: text/plain; charset=utf-8`.
    package static func text(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(
            status: status,
            headers: [(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Data(text.utf8)
        )
    }

    /// A response whose body `producer` writes over time, on the connection's thread, after the head
    /// has been sent: the client sees each write as it happens (NDJSON, server-sent events, slow or
    /// huge downloads, bodies cut off mid-way).
    ///
    /// When the producer returns the body is ended (``LoopbackBodyWriter/end()``) unless it already
    /// was, or was aborted. The producer is not run for HEAD requests or 204/304 statuses. Delays,
    /// ``LoopbackFault/hugeHeader(bytes:)`` and ``LoopbackFault/closeAfterResponse`` apply; faults
    /// that reshape a ready-made body (`dropAfterBodyBytes`, `declaredContentLength`, `chunked`,
    /// `splitWrites`) do not fit a streamed one, so the server answers 500 instead, naming them.
    /// Like the handler, the producer must return: `stop()` makes writes and waits fail, but cannot
    /// interrupt other code.
    package static func streamed(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        framing: LoopbackBodyFraming = .chunked,
        faults: [LoopbackFault] = [],
        producer: @escaping @Sendable (LoopbackBodyWriter) -> Void
    ) -> LoopbackResponse {
        var response = LoopbackResponse(status: status, headers: headers, faults: faults)
        response.streamedBody = StreamedBody(framing: framing, producer: producer)
        return response
    }

    /// A streamed body of `byteCount` bytes of ``LoopbackBodyPattern``, sent from one shared buffer:
    /// a 100 MB download costs the server no memory. Framed by `Content-Length` unless `chunked`.
    package static func patterned(
        byteCount: Int,
        status: Int = 200,
        headers: [(name: String, value: String)] = [(name: "Content-Type", value: "application/octet-stream")],
        chunked: Bool = false
    ) -> LoopbackResponse {
        let count = max(byteCount, 0)
        return streamed(status: status, headers: headers, framing: chunked ? .chunked : .contentLength(count)) {
            $0.writePattern(byteCount: count)
        }
    }

    /// A JSON ``LoopbackUploadReport`` of `request`: what the server saw of its body (size, SHA-256,
    /// multipart parts) and framing, so a client-side test can check an upload it cannot see.
    ///
    /// Works with buffered and digested bodies: a buffered body is digested on the spot. A request
    /// read in ``LoopbackRequestBodyMode/counted`` mode has nothing to report but its length, so the
    /// answer is then a 500 that says so, never a digest of bytes the server did not see.
    package static func uploadReport(for request: LoopbackRequest, status: Int = 200) -> LoopbackResponse {
        if request.bodyDigest == nil && request.body.count != request.bodyByteCount {
            return .text(
                "LoopbackServer: a counted body has no digest to report (\(request.bodyByteCount) bytes)", status: 500)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let body = try encoder.encode(LoopbackUploadReport(request))
            return LoopbackResponse(
                status: status, headers: [(name: "Content-Type", value: "application/json")], body: body)
        } catch {
            return .text("LoopbackServer: cannot encode the upload report: \(error)", status: 500)
        }
    }

    /// Returns a copy with `fault` appended, for fluent use in handlers.
    package func with(_ fault: LoopbackFault) -> LoopbackResponse {
        var copy = self
        copy.faults.append(fault)
        return copy
    }
}
