import Foundation
import NetCore

extension StubTransport.Reply {
    /// A body encoded as JSON by `encoder`, with `Content-Type: application/json`.
    /// - Throws: the encoder's error.
    public static func json<Value: Encodable>(
        encoding value: Value,
        status: Int = 200,
        headers: [String: String] = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> Self {
        let data = try encoder.encode(value)
        return .data(
            data, status: status, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own })
    }

    /// A text body, UTF-8, with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> Self {
        .data(
            Data(text.utf8), status: status,
            headers: headers.merging(["Content-Type": "text/plain; charset=utf-8"]) { own, _ in own })
    }

    /// A transport failure of this kind instead of a response, as a real transport reports it
    /// (`.failure(.timedOut)`, `.failure(.cannotConnect)`).
    public static func failure(_ kind: TransportError.Kind) -> Self {
        .failure(TransportError(kind))
    }

    /// This reply with one more header field, after the others; a name may repeat (`Set-Cookie`).
    public func header(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.additionalHeaders.append((name: name, value: value))
        return copy
    }

    /// This reply with one more fault (``StubFault``), after the others: it misbehaves as a server would, so a test
    /// sees its retry and timeout handling at work.
    ///
    /// ```swift
    /// stub.stub(replies: [.json("{}").fault(.resetBeforeHead), .json(#"{"id":1}"#)])
    /// let slow = StubTransport.Reply.data(bytes).fault(.trickle(bytes: 10, every: .seconds(1)))
    /// stub.stub(reply: slow.fault(.closeMidBody(afterBytes: 50)))
    /// ```
    public func fault(_ fault: StubFault) -> Self {
        var copy = self
        copy.faults.append(fault)
        return copy
    }

    /// This reply held, after its delay, until `gate` opens.
    public func held(by gate: StubGate) -> Self {
        var copy = self
        copy.gate = gate
        return copy
    }
}
