import Foundation

/// What the handler of a ``LoopbackServer`` answers with.
///
/// The server owns the message framing: `Content-Length`, `Transfer-Encoding` and `Connection`
/// headers set here are replaced by the ones it computes (use ``LoopbackFault`` to lie on purpose).
/// A `Connection: close` header is honoured as if ``LoopbackFault/closeAfterResponse`` were given.
public struct LoopbackResponse: Sendable {
    /// The status code; 100–199 are not valid final statuses and are sent as 500.
    public var status: Int
    /// Extra header fields, written in this order after the status line.
    public var headers: [(name: String, value: String)]
    /// The body; never sent for HEAD requests or 204/304 statuses.
    public var body: Data
    /// Misbehaviour to apply while sending this response.
    public var faults: [LoopbackFault]

    /// Creates a response.
    public init(
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
    public static func json(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(
            status: status,
            headers: [(name: "Content-Type", value: "application/json")],
            body: Data(text.utf8)
        )
    }

    /// A response whose body is `text` encoded as UTF-8, with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(
            status: status,
            headers: [(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Data(text.utf8)
        )
    }

    /// Returns a copy with `fault` appended, for fluent use in handlers.
    public func with(_ fault: LoopbackFault) -> LoopbackResponse {
        var copy = self
        copy.faults.append(fault)
        return copy
    }
}
