/// How a streamed response body (``LoopbackResponse/streamed(status:headers:framing:faults:producer:)``)
/// tells the client where it ends.
package enum LoopbackBodyFraming: Sendable, Equatable {
    /// `Transfer-Encoding: chunked`: every non-empty write is one chunk, so a client sees each write
    /// as it happens, and the terminating zero chunk is what marks a complete body.
    ///
    /// An HTTP/1.0 client cannot read chunks: it gets the raw bytes and the end of the body is the
    /// end of the connection.
    case chunked
    /// `Content-Length` with this value: the producer must write exactly this many bytes, or the
    /// connection is dropped, which the client sees as a truncated body.
    case contentLength(Int)
}
