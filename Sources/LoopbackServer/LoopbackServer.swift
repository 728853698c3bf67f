import Foundation

/// A small, dependency-free HTTP/1.1 server on 127.0.0.1 for tests of HTTP clients.
///
/// Each accepted connection gets its own thread, which reads requests in sequence (keep-alive),
/// records each one, and answers with whatever the handler returns. It understands what libcurl
/// sends: `Content-Length` and `Transfer-Encoding: chunked` bodies and `Expect: 100-continue`.
///
/// Responses are either ready-made or streamed (``LoopbackResponse/streamed(status:headers:framing:faults:producer:)``:
/// a producer writes the body over time, on the same thread). Request bodies are kept whole, or in
/// ``LoopbackRequestBodyMode/digested`` mode only summarised, so uploads of any size fit.
///
/// The handler (and a streamed response's producer) runs on the connection's thread and must
/// return; `stop()` makes socket writes and waits fail but cannot interrupt other code.
/// Do not capture the server strongly in its own handler, or `deinit` (and with it `stop()`) never runs.
package final class LoopbackServer: Sendable {
    private let core: ServerCore

    /// Starts listening on 127.0.0.1 on a kernel-chosen port; the handler answers every request.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if the socket cannot be set up.
    package convenience init(
        handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) throws(LoopbackServerError) {
        try self.init(limits: LoopbackLimits(), handler: handler)
    }

    /// Starts listening on 127.0.0.1 on a kernel-chosen port, with custom limits, keeping request
    /// bodies whole or only their digests (for uploads too big to hold).
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if the socket cannot be set up.
    package init(
        limits: LoopbackLimits,
        requestBodies: LoopbackRequestBodyMode = .buffered,
        handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) throws(LoopbackServerError) {
        core = try ServerCore(limits: limits, bodyMode: requestBodies, handler: handler)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// The port the kernel chose.
    package var port: Int { core.port }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    package var baseURL: URL {
        // Cannot fail: the string is a literal scheme and host with a decimal port.
        URL(string: "http://127.0.0.1:\(core.port)")!
    }

    /// The limits in force.
    package var limits: LoopbackLimits { core.limits }

    /// What the server keeps of request bodies.
    package var requestBodyMode: LoopbackRequestBodyMode { core.bodyMode }

    /// Every complete request received, in arrival order (recorded before its handler runs), up to
    /// ``LoopbackLimits/maxRecordedRequests``.
    package var requests: [LoopbackRequest] { core.requests }

    /// Number of complete requests received (equal to `requests.count` unless
    /// ``LoopbackLimits/maxRecordedRequests`` was reached), without copying the requests.
    package var requestCount: Int { core.value(of: .requests) }

    /// The most received-but-unprocessed bytes any connection has held at once: how a test checks
    /// that digest mode keeps a huge upload out of memory. It covers request heads, chunk-size lines
    /// and pipelined input; in buffered mode the body is kept on top of this, in digest mode nothing
    /// else of the body is.
    package var peakReceiveBufferBytes: Int { core.peakReceiveBuffer }

    /// Number of TCP connections accepted so far.
    package var acceptedConnections: Int { core.value(of: .acceptedConnections) }

    /// Number of responses the client cut short by closing (or resetting) the connection before
    /// the server finished answering: during a delay fault, a write, or a streamed body (noticed by
    /// a failed write or by the producer's ``LoopbackBodyWriter/wait(for:timeout:)`` or
    /// ``LoopbackBodyWriter/waitForClientClose(timeout:)``).
    package var clientAbortedResponses: Int { core.value(of: .clientAbortedResponses) }

    /// Number of connections that have ended, whoever closed them.
    package var closedConnections: Int { core.value(of: .closedConnections) }

    /// Suspends until `count` requests have been received in total, or throws after `timeout`.
    ///
    /// Connection threads resume the waiting task as they record requests; nothing polls.
    /// - Throws: ``LoopbackServerError/timedOut(counter:expected:reached:)``,
    ///   ``LoopbackServerError/stopped``, or `CancellationError`.
    package func waitForRequests(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        try await core.wait(for: .requests, atLeast: count, timeout: timeout)
    }

    /// Suspends until `counter` has reached at least `value`, or throws after `timeout`.
    /// - Throws: ``LoopbackServerError/timedOut(counter:expected:reached:)``,
    ///   ``LoopbackServerError/stopped``, or `CancellationError`.
    package func wait(for counter: LoopbackCounter, atLeast value: Int, timeout: Duration = .seconds(10)) async throws {
        try await core.wait(for: counter, atLeast: value, timeout: timeout)
    }

    /// A gate that opens once `counter` has reached at least `value` (at once if it has): a producer thread, such
    /// as a request body stream, blocks on it with ``LoopbackGate/wait(timeout:)`` to hold its next bytes back until
    /// the server has received the previous ones.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if no pipe can be created.
    package func gate(
        opening counter: LoopbackCounter, atLeast value: Int
    ) throws(LoopbackServerError) -> LoopbackGate {
        try core.gate(opening: counter, atLeast: value)
    }

    /// Closes the listening socket and every open connection and joins all server threads.
    ///
    /// Idempotent, and called from `deinit`. Pending `wait…` calls throw ``LoopbackServerError/stopped``.
    /// Called from inside a handler it cannot join that handler's own thread, so it returns once
    /// everything is signalled; the threads still end promptly.
    package func stop() {
        core.stop()
    }
}
