import Foundation

/// Serialises a ``LoopbackResponse`` onto a connection, applying its faults.
struct ResponseWriter {
    /// What the connection should do after a response.
    enum Outcome: Equatable {
        case keepOpen
        case close
        /// The client went away before the response was complete.
        case clientAborted
        case stopped
    }

    let socket: Socket
    let wake: WakePipe

    /// Sends `response` to a request made with `method` over `version`.
    func write(
        _ response: LoopbackResponse,
        method: String,
        version: String,
        clientKeepAlive: Bool
    ) -> Outcome {
        let plan = FaultPlan(response.faults)
        if plan.closeWithoutResponse { return .close }
        if let stream = response.streamedBody {
            return writeStreamed(
                response, stream, plan: plan, method: method, version: version, clientKeepAlive: clientKeepAlive)
        }
        if plan.splitSizes != nil { socket.setNoDelay() }
        var sender = SegmentedSender(socket: socket, sizes: plan.splitSizes ?? [])

        let status = Self.finalStatus(response.status)
        let bodyAllowed = method != "HEAD" && status != 204 && status != 304
        let closing = !clientKeepAlive || plan.closeAfterResponse || plan.breaksFraming || Self.asksToClose(response)

        let framing: String?
        if let declared = plan.declaredContentLength {
            framing = "Content-Length: \(declared)"
        } else if status == 204 || status == 304 {
            // RFC 9110 §8.6: no Content-Length on 204; on 304 it would describe another representation.
            framing = nil
        } else if plan.chunkSizes != nil {
            framing = "Transfer-Encoding: chunked"
        } else {
            framing = "Content-Length: \(response.body.count)"
        }
        let head = Self.head(
            status: status, response: response, framing: framing, plan: plan, closing: closing, version: version)

        var body: [UInt8] = []
        if bodyAllowed {
            if let sizes = plan.chunkSizes {
                body = Self.chunkEncode([UInt8](response.body), sizes: sizes)
            } else {
                body = [UInt8](response.body)
            }
            if let limit = plan.dropAfterBodyBytes {
                body = Array(body.prefix(limit))
            }
        }

        if plan.delayBeforeHead > .zero, let interrupted = pause(plan.delayBeforeHead) { return interrupted }
        if plan.delayBeforeBody > .zero || plan.splitSizes != nil {
            guard sender.send(Array(head.utf8)) else { return failure() }
            if plan.delayBeforeBody > .zero, let interrupted = pause(plan.delayBeforeBody) { return interrupted }
            guard sender.send(body) else { return failure() }
        } else {
            // One send: a small response leaves as one segment, and a busy keep-alive connection
            // costs one system call per response.
            guard sender.send(Array(head.utf8) + body) else { return failure() }
        }
        return closing ? .close : .keepOpen
    }

    /// Sends the head of a streamed response, then runs its producer on this thread.
    private func writeStreamed(
        _ response: LoopbackResponse,
        _ stream: LoopbackResponse.StreamedBody,
        plan: FaultPlan,
        method: String,
        version: String,
        clientKeepAlive: Bool
    ) -> Outcome {
        let misfits = plan.bodyShapingFaults
        guard misfits.isEmpty else {
            return writeRejection(
                status: 500,
                reason: "LoopbackServer: fault \(misfits.joined(separator: ", ")) cannot apply to a streamed body"
            )
        }
        let status = Self.finalStatus(response.status)
        let bodyAllowed = method != "HEAD" && status != 204 && status != 304
        let wire: LoopbackBodyWriter.Wire
        switch stream.framing {
        case .chunked: wire = version == "HTTP/1.0" ? .untilClose : .chunked
        case let .contentLength(length): wire = .contentLength(max(length, 0))
        }
        var framing: String?
        switch wire {
        case .chunked: framing = "Transfer-Encoding: chunked"
        case let .contentLength(length): framing = "Content-Length: \(length)"
        case .untilClose: framing = nil
        }
        // RFC 9110 §8.6: no framing on 204; on 304 it would describe another representation.
        if status == 204 || status == 304 { framing = nil }
        let closing =
            !clientKeepAlive || plan.closeAfterResponse || Self.asksToClose(response)
            || (bodyAllowed && wire == .untilClose)
        let head = Array(
            Self.head(
                status: status, response: response, framing: framing, plan: plan, closing: closing, version: version
            ).utf8)

        if plan.delayBeforeHead > .zero, let interrupted = pause(plan.delayBeforeHead) { return interrupted }
        guard socket.sendAll(head[...]) else { return failure() }
        if plan.delayBeforeBody > .zero, let interrupted = pause(plan.delayBeforeBody) { return interrupted }
        guard bodyAllowed else { return closing ? .close : .keepOpen }
        let writer = LoopbackBodyWriter(socket: socket, wake: wake, wire: wire)
        stream.producer(writer)
        return writer.conclude(closing: closing)
    }

    /// 1xx cannot be a final status, and a status must have three digits.
    private static func finalStatus(_ status: Int) -> Int {
        (200...999).contains(status) ? status : 500
    }

    private static func asksToClose(_ response: LoopbackResponse) -> Bool {
        response.headers.contains { $0.name.lowercased() == "connection" && $0.value.lowercased().contains("close") }
    }

    /// Status line and header section; the handler's framing headers are replaced by `framing`.
    private static func head(
        status: Int,
        response: LoopbackResponse,
        framing: String?,
        plan: FaultPlan,
        closing: Bool,
        version: String
    ) -> String {
        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        let framingNames: Set<String> = ["content-length", "transfer-encoding", "connection"]
        for field in response.headers where !framingNames.contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        if let framing { head += "\(framing)\r\n" }
        if let padding = plan.paddingBytes {
            head += "X-Padding: \(String(repeating: "a", count: padding))\r\n"
        }
        if closing {
            head += "Connection: close\r\n"
        } else if version == "HTTP/1.0" {
            head += "Connection: keep-alive\r\n"
        }
        return head + "\r\n"
    }

    /// A minimal response for a request the parser refused; the connection closes after it.
    func writeRejection(status: Int, reason: String) -> Outcome {
        let body = Array("\(reason)\n".utf8)
        let head =
            "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.count)\r\n"
            + "Connection: close\r\n\r\n"
        var sender = SegmentedSender(socket: socket, sizes: [])
        guard sender.send(Array(head.utf8) + body) else { return failure() }
        return .close
    }

    /// `nil` when the pause ran its full length.
    private func pause(_ duration: Duration) -> Outcome? {
        switch socket.pause(for: duration, wake: wake) {
        case .elapsed, .signalled: return nil
        case .peerClosed: return .clientAborted
        case .woken: return .stopped
        }
    }

    /// A failed send means the peer reset the connection, unless `stop()` shut the socket down.
    private func failure() -> Outcome {
        wake.isSignalled ? .stopped : .clientAborted
    }

    /// RFC 9112 §7.1 encoding with the given chunk sizes, used cyclically.
    static func chunkEncode(_ body: [UInt8], sizes: [Int]) -> [UInt8] {
        let sizes = sizes.isEmpty ? [max(body.count, 1)] : sizes
        var output: [UInt8] = []
        var offset = 0
        var index = 0
        // Every round consumes at least one body byte (sizes are positive).
        while offset < body.count {
            let size = min(sizes[index % sizes.count], body.count - offset)
            output += Array("\(String(size, radix: 16))\r\n".utf8)
            output += body[offset..<(offset + size)]
            output += [0x0D, 0x0A]
            offset += size
            index += 1
        }
        output += Array("0\r\n\r\n".utf8)
        return output
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
