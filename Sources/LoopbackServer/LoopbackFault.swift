/// Misbehaviour a ``LoopbackResponse`` can ask for, so client tests can exercise their error paths.
///
/// Faults combine: delays of the same kind add up; for the other kinds the last one listed wins.
package enum LoopbackFault: Sendable, Equatable {
    /// Waits this long before writing the status line.
    ///
    /// The wait ends early if the client closes the connection (counted in
    /// ``LoopbackServer/clientAbortedResponses``) or the server stops.
    case delayBeforeHead(Duration)
    /// Writes the head, then waits this long (ending early as above), then writes the body.
    case delayBeforeBody(Duration)
    /// Writes the head with the true `Content-Length`, then only this many body bytes, then closes the connection.
    ///
    /// With ``chunked(sizes:)`` the count is of encoded (on-the-wire) body bytes.
    case dropAfterBodyBytes(Int)
    /// Sends this `Content-Length` instead of the true one, then the whole real body, then closes the connection.
    case declaredContentLength(Int)
    /// Sends the body with `Transfer-Encoding: chunked`, using these chunk sizes cyclically.
    ///
    /// Sizes below 1 are skipped; if none is left the body goes out as a single chunk.
    case chunked(sizes: [Int])
    /// Writes the whole response (head and body bytes) in separate `send` calls of these sizes,
    /// cyclically, with `TCP_NODELAY` set so each leaves as its own segment.
    ///
    /// Sizes below 1 are skipped; if none is left the response goes out unsplit.
    case splitWrites(sizes: [Int])
    /// Adds an `X-Padding` header whose value is this many bytes long.
    case hugeHeader(bytes: Int)
    /// Sends `Connection: close` and closes the connection after the response.
    case closeAfterResponse
    /// Closes the connection without writing anything: what a server that drops an idle kept-alive connection as
    /// the next request arrives looks like to the client. Every other fault is ignored.
    case closeWithoutResponse
}
