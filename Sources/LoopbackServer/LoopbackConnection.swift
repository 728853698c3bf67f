import Foundation

/// Serves the requests of one accepted connection, on that connection's own thread.
struct LoopbackConnection {
    /// Bounds the keep-alive loop; the response to the last allowed request carries `Connection: close`.
    static let maxRequestsPerConnection = 1_000_000
    /// Bounds how much unread input a closing connection drains.
    static let maxLingerBytes = 16 * 1024 * 1024

    let core: ServerCore
    let socket: Socket
    let number: Int

    func run() {
        let core = core
        var parser = HTTPRequestParser(
            socket: socket, wake: core.wake, limits: core.limits, bodyMode: core.bodyMode,
            bodyBytesRead: { core.add($0, to: .requestBodyBytes) })
        let writer = ResponseWriter(socket: socket, wake: core.wake)
        defer { core.notePeakReceiveBuffer(parser.peakBufferedBytes) }
        for served in 0..<Self.maxRequestsPerConnection {
            switch parser.next() {
            case .closed, .stopped, .broken:
                return
            case let .rejected(status, reason):
                if writer.writeRejection(status: status, reason: reason) == .close { linger() }
                return
            case let .request(parsed):
                let request = LoopbackRequest(
                    method: parsed.method,
                    target: parsed.target,
                    version: parsed.version,
                    headers: parsed.headers,
                    body: Data(parsed.body),
                    wasChunked: parsed.wasChunked,
                    trailers: parsed.trailers,
                    expectedContinue: parsed.expectedContinue,
                    connectionNumber: number,
                    bodyDigest: parsed.digest,
                    bodyByteCount: parsed.bodyByteCount
                )
                // Recorded before the handler runs, so a test can observe a request whose response is delayed.
                core.record(request, peakReceiveBuffer: parser.peakBufferedBytes)
                let response = core.handler(request)
                let keepAlive = parsed.keepAlive && served + 1 < Self.maxRequestsPerConnection
                switch writer.write(
                    response, method: parsed.method, version: parsed.version, clientKeepAlive: keepAlive)
                {
                case .keepOpen:
                    continue
                case .close:
                    linger()
                    return
                case .clientAborted:
                    core.increment(.clientAbortedResponses)
                    return
                case .stopped:
                    return
                }
            }
        }
    }

    /// Half-closes, then drains what the client still sends for a bounded time.
    ///
    /// Closing a socket with unread input makes the kernel send a reset, which can destroy the
    /// response still in flight to the client; draining first avoids that (RFC 9112 §9.6).
    private func linger() {
        socket.shutdownWrite()
        let clock = ContinuousClock()
        let deadline = clock.now + core.limits.lingerTimeout
        var drained = 0
        var scratch = [UInt8](repeating: 0, count: 65_536)
        // Bounded by the byte cap and the deadline; EOF, stop() or an error end it sooner.
        while drained < Self.maxLingerBytes {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            guard socket.waitReadable(wake: core.wake, timeoutMilliseconds: remaining.pollMilliseconds) == .readable
            else {
                return
            }
            guard case let .received(count) = scratch.withUnsafeMutableBytes({ socket.receive(into: $0) }) else {
                return
            }
            drained += count
        }
    }
}
