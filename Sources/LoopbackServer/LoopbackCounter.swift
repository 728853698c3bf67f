/// The counters of a ``LoopbackServer`` that tests can wait on with ``LoopbackServer/wait(for:atLeast:timeout:)``.
package enum LoopbackCounter: String, Sendable, Hashable, CaseIterable {
    /// Complete requests received (see ``LoopbackServer/requestCount``).
    case requests
    /// TCP connections accepted (see ``LoopbackServer/acceptedConnections``).
    case acceptedConnections
    /// Responses (streamed bodies included) cut short because the client closed first
    /// (see ``LoopbackServer/clientAbortedResponses``).
    case clientAbortedResponses
    /// Connections that have ended, whoever closed them (see ``LoopbackServer/closedConnections``).
    case closedConnections
    /// Request body bytes received so far (de-chunked), counted as they arrive, also of a request not yet
    /// complete: what a test waits on to know the first part of an upload reached the server.
    case requestBodyBytes
}
