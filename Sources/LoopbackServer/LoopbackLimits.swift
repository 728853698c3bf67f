/// Bounds that keep a misbehaving client from tying up a ``LoopbackServer`` forever.
package struct LoopbackLimits: Sendable, Equatable {
    /// Largest request head (request line plus header fields, and separately the chunked trailer section);
    /// beyond it the server answers 431 and closes.
    package var maxHeaderBytes: Int
    /// Largest request body (after de-chunking) the server keeps in memory; beyond it the server
    /// answers 413 and closes.
    package var maxBodyBytes: Int
    /// Largest request body in digest mode (``LoopbackRequestBodyMode/digested``), where bodies are
    /// never held; beyond it the server answers 413 and closes.
    package var maxDigestedBodyBytes: Int
    /// How many requests ``LoopbackServer/requests`` keeps: the first ones received. Counting goes
    /// on past it; lower it for long benchmarks, which would otherwise keep every request.
    package var maxRecordedRequests: Int
    /// How long a connection may stay silent, between or inside requests, before the server closes it.
    package var idleTimeout: Duration
    /// How long a closing connection keeps draining what the client still sends, so our last
    /// response is not destroyed by a TCP reset triggered by unread input.
    package var lingerTimeout: Duration

    /// Creates limits; the defaults suit tests (64 KiB head, 64 MiB body kept in memory, 1 TiB body
    /// digested, 30 s idle, 2 s linger, every request recorded).
    package init(
        maxHeaderBytes: Int = 64 * 1024,
        maxBodyBytes: Int = 64 * 1024 * 1024,
        maxDigestedBodyBytes: Int = 1 << 40,
        maxRecordedRequests: Int = .max,
        idleTimeout: Duration = .seconds(30),
        lingerTimeout: Duration = .seconds(2)
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxDigestedBodyBytes = maxDigestedBodyBytes
        self.maxRecordedRequests = maxRecordedRequests
        self.idleTimeout = idleTimeout
        self.lingerTimeout = lingerTimeout
    }
}
