import Foundation  // FileHandle: not in FoundationEssentials
import NetCore
import NetKitLock

extension StubTransport.Reply {
    /// Answers `request` as this reply says, everything a transport does once it knows its answer: the reply's
    /// delay (slept on `clock`), its gate, its error, the faults that come before the head, the head, what the
    /// request is told (``TransportRequest/onSent`` for a request without a body, progress), then the body.
    ///
    /// ``StubTransport/send(_:)`` calls it once it has read and recorded the request and chosen the reply; a replay
    /// transport calls it to deliver a recorded reply the same way. A request with a body is reported sent in full
    /// (its ``TransportRequest/bodyLength``; nothing for a body of unknown length): telling ``TransportRequest/onSent``
    /// about it is the caller's, which reads the body.
    ///
    /// A body with neither faults nor pacing (``chunkDelays``) nor a file (``bodyFile``) is handed over in memory, as
    /// it always was; any other is produced piece by piece as the consumer reads it, so it stops when the consumer
    /// stops or its task is cancelled, and a file is never held whole in memory.
    /// - Throws: the reply's error; `TransportError(.connectionReset)` or `.timedOut` for a fault before the head;
    ///   `NetworkError.invalidHeader(name:)` for header fields a server could not send; the file system's error when
    ///   ``bodyFile`` cannot be opened; `CancellationError` when the task is cancelled while the reply waits.
    func response(to request: TransportRequest, clock: any Clock<Duration>) async throws -> TransportResponse {
        if let delay { try await clock.sleep(for: delay) }
        if let gate { try await gate.pass() }
        if let error { throw error }
        let silence = StubSilence(clock: clock, idleTimeout: request.idleTimeout)
        try await deliverFaultsBeforeHead(silence)
        var fields = try HTTPHeaderFields(headers)
        for (name, value) in additionalHeaders { try fields.addValue(value, for: name) }
        let plan = StubBodyPlan(faults)
        let source = try StubBodySource(chunks: chunks, file: bodyFile, sizes: chunkSizes)
        if plan.missingBytes > 0 {
            try fields.setValue(String(source.length + Int64(plan.missingBytes)), for: "Content-Length")
        }
        let head = HTTPResponseHead(statusCode: status, headerFields: fields)
        if request.body != nil {
            if let sent = request.bodyLength { request.progress?.reportSent(sent, of: sent) }
        } else {
            request.onSent?(.head)
        }
        guard plan.changesBody || chunkDelays != nil || bodyFile != nil else {
            // What the stub always did: every chunk at once, in memory.
            let received = Int64(chunks.reduce(0) { $0 + $1.count })
            request.progress?.reportReceived(received, of: received)
            let stream = AsyncThrowingStream<Data, any Error> { [chunks, bodyError] continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish(throwing: bodyError)
            }
            return TransportResponse(head: head, body: ResponseBody(stream))
        }
        let total = head.declaredContentLength ?? source.length
        request.progress?.reportReceived(0, of: total)
        let body = StubBody(
            source: source, delays: chunkDelays ?? [], plan: plan, silence: silence, bodyError: bodyError,
            progress: request.progress, total: total)
        return TransportResponse(head: head, body: ResponseBody(body) { source.close() })
    }

    /// Stalls and resets before the head, in the order they were added: the stalls before a reset are waited, then
    /// the reset thrown; consecutive stalls make one silence, as a real idle timer sees them.
    private func deliverFaultsBeforeHead(_ silence: StubSilence) async throws {
        var pause = Duration.zero
        for fault in faults {
            switch fault.kind {
            case .stallAtStart(let duration):
                pause += duration
            case .resetBeforeHead:
                try await silence.wait(pause, "before the head")
                throw TransportError(
                    .connectionReset, detail: "StubFault.resetBeforeHead: the stub reset the connection before a head")
            default:
                break
            }
        }
        try await silence.wait(pause, "before the head")
    }
}
