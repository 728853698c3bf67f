/// Reads HTTP/1.1 requests (RFC 9112) off one connection, one after another.
///
/// Blocking reads are fine (one thread per connection), but every read first polls the socket
/// together with the server's wake pipe, so `stop()` and the idle timeout always end a wait.
struct HTTPRequestParser {
    /// A request head and body, before the connection number is attached.
    struct ParsedRequest {
        let method: String
        let target: String
        let version: String
        let headers: [(name: String, value: String)]
        let body: [UInt8]
        /// Set instead of `body` in digest mode.
        let digest: LoopbackBodyDigest?
        /// The body's length in every mode (also when it was neither kept nor digested).
        let bodyByteCount: Int
        let wasChunked: Bool
        let trailers: [(name: String, value: String)]
        let expectedContinue: Bool
        /// Whether the client wants the connection kept open after the response.
        let keepAlive: Bool
    }

    /// What reading the next request produced.
    enum Outcome {
        case request(ParsedRequest)
        /// The client closed cleanly between requests.
        case closed
        /// The server is stopping.
        case stopped
        /// The request is unacceptable: answer with this status and close.
        case rejected(status: Int, reason: String)
        /// The connection died, timed out or was reset mid-request: nothing sensible to answer.
        case broken
    }

    /// Why a read could not deliver more bytes.
    private enum ReadFailure: Error {
        /// A bare CR inside a line, which invites request smuggling.
        case malformed
        case endOfStream
        case stopped
        case timedOut
        case failed
        case tooLong
    }

    private let socket: Socket
    private let wake: WakePipe
    private let limits: LoopbackLimits
    private let bodyMode: LoopbackRequestBodyMode
    private var buffer: [UInt8] = []
    /// Index of the first unconsumed byte in `buffer`; consumed bytes are dropped in bulk to avoid quadratic copying.
    private var start = 0
    /// Where `recv` puts bytes; reused, so reading allocates nothing per call.
    private var scratch = [UInt8](repeating: 0, count: 65_536)
    /// The most bytes `buffer` has held at once (body bytes read straight into `scratch` never enter it).
    private(set) var peakBufferedBytes = 0

    /// Told the size of each piece of body read, as it is read.
    private let bodyBytesRead: (Int) -> Void

    init(
        socket: Socket, wake: WakePipe, limits: LoopbackLimits, bodyMode: LoopbackRequestBodyMode,
        bodyBytesRead: @escaping (Int) -> Void = { _ in }
    ) {
        self.socket = socket
        self.wake = wake
        self.limits = limits
        self.bodyMode = bodyMode
        self.bodyBytesRead = bodyBytesRead
    }

    /// The largest body accepted in the current mode.
    private var maxBody: Int {
        bodyMode == .buffered ? limits.maxBodyBytes : limits.maxDigestedBodyBytes
    }

    /// Reads the next request; sends `100 Continue` itself when the client asks for it.
    mutating func next() -> Outcome {
        let headLines: [[UInt8]]
        do {
            headLines = try readHead()
        } catch .endOfStream where start == buffer.count {
            return .closed
        } catch .timedOut where start == buffer.count {
            return .closed
        } catch .stopped {
            return .stopped
        } catch .tooLong {
            return .rejected(status: 431, reason: "request header section exceeds \(limits.maxHeaderBytes) bytes")
        } catch .malformed {
            return .rejected(status: 400, reason: "bare CR in the request head")
        } catch {
            return .broken
        }
        return readRest(headLines)
    }

    // MARK: - Head

    /// Reads lines up to the empty line ending the header section; leading empty lines are ignored (RFC 9112 §2.2).
    private mutating func readHead() throws(ReadFailure) -> [[UInt8]] {
        var budget = limits.maxHeaderBytes
        var lines: [[UInt8]] = []
        // Each line costs at least one byte of the budget, so this ends after maxHeaderBytes lines.
        while true {
            let line = try readLine(budget: &budget)
            if line.isEmpty {
                if lines.isEmpty { continue }
                return lines
            }
            lines.append(line)
        }
    }

    private mutating func readRest(_ lines: [[UInt8]]) -> Outcome {
        let requestLine = lines[0].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard requestLine.count == 3,
            !requestLine[0].isEmpty, requestLine[0].allSatisfy(HeaderParameterParser.isToken),
            !requestLine[1].isEmpty, requestLine[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return .rejected(status: 400, reason: "malformed request line") }
        let method = String(decoding: requestLine[0], as: UTF8.self)
        let target = String(decoding: requestLine[1], as: UTF8.self)
        let version = String(decoding: requestLine[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/") else { return .rejected(status: 400, reason: "malformed request line") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .rejected(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are supported")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let field = Self.parseField(line) else {
                return .rejected(status: 400, reason: "malformed header field")
            }
            headers.append(field)
        }
        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name }.map(\.value)
        }
        let connectionTokens = values("connection")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingWhitespace().lowercased() }
        let keepAlive =
            version == "HTTP/1.1"
            ? !connectionTokens.contains("close")
            : connectionTokens.contains("keep-alive")

        // Framing (RFC 9112 §6): Transfer-Encoding wins over Content-Length.
        let transferCodings = values("transfer-encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingWhitespace().lowercased() }
        var chunked = false
        var contentLength = 0
        if !transferCodings.isEmpty {
            guard transferCodings == ["chunked"] else {
                return .rejected(status: 501, reason: "unsupported transfer coding")
            }
            chunked = true
        } else {
            let lengths = Set(
                values("content-length").flatMap { $0.split(separator: ",") }
                    .map { $0.trimmingWhitespace() })
            if lengths.count > 1 { return .rejected(status: 400, reason: "conflicting Content-Length") }
            if let text = lengths.first {
                guard !text.isEmpty, text.count <= 18, text.allSatisfy(\.isASCIIDigit), let value = Int(text) else {
                    return .rejected(status: 400, reason: "invalid Content-Length")
                }
                contentLength = value
            }
        }
        guard contentLength <= maxBody else {
            return .rejected(status: 413, reason: "body exceeds \(maxBody) bytes")
        }

        let expectations = values("expect")
        let expectedContinue = expectations.contains { $0.lowercased() == "100-continue" }
        if !expectations.isEmpty && !expectedContinue {
            return .rejected(status: 417, reason: "unsupported expectation")
        }
        // A 1.0 client cannot understand 1xx, and without a body there is nothing to wait for (RFC 9110 §10.1.1).
        if expectedContinue && version == "HTTP/1.1" && (chunked || contentLength > 0) {
            let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            guard socket.sendAll(interim[...]) else { return wake.isSignalled ? .stopped : .broken }
        }

        var collector = BodyCollector(
            keepsBytes: bodyMode == .buffered,
            digester: bodyMode == .digested ? LoopbackBodyDigester(contentType: values("content-type").first) : nil
        )
        var trailers: [(name: String, value: String)] = []
        do {
            if chunked {
                switch try readChunkedBody(into: &collector) {
                case let .success(result):
                    trailers = result
                case let .failure(rejection):
                    return .rejected(status: rejection.status, reason: rejection.reason)
                }
            } else if contentLength > 0 {
                collector.reserve(contentLength)
                try readBody(count: contentLength, into: &collector)
            }
        } catch .stopped {
            return .stopped
        } catch .tooLong {
            return .rejected(status: 431, reason: "trailer section exceeds \(limits.maxHeaderBytes) bytes")
        } catch .malformed {
            return .rejected(status: 400, reason: "bare CR in a chunk line or trailer")
        } catch {
            return .broken
        }
        return .request(
            ParsedRequest(
                method: method,
                target: target,
                version: version,
                headers: headers,
                body: collector.bytes,
                digest: collector.digester?.finalize(),
                bodyByteCount: collector.count,
                wasChunked: chunked,
                trailers: trailers,
                expectedContinue: expectedContinue,
                keepAlive: keepAlive
            ))
    }

    /// `name: value` with a token name, no whitespace before the colon and no obsolete folding (RFC 9112 §5).
    private static func parseField(_ line: [UInt8]) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[..<colon].allSatisfy(HeaderParameterParser.isToken)
        else { return nil }
        let value = line[(colon + 1)...]
        guard !value.contains(where: { $0 == 0x00 || $0 == 0x0D || $0 == 0x0A }) else { return nil }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        return (name: name, value: decodeFieldValue(value).trimmingWhitespace())
    }

    /// Field values are UTF-8 in practice; anything else is read as ISO-8859-1, as HTTP historically did.
    private static func decodeFieldValue(_ bytes: ArraySlice<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    // MARK: - Body

    /// Where body bytes go as they are read: kept, summarised or only counted, then dropped.
    private struct BodyCollector {
        var bytes: [UInt8] = []
        let keepsBytes: Bool
        var digester: LoopbackBodyDigester?
        var count = 0

        init(keepsBytes: Bool, digester: LoopbackBodyDigester?) {
            self.keepsBytes = keepsBytes
            self.digester = digester
        }

        mutating func reserve(_ count: Int) {
            if keepsBytes { bytes.reserveCapacity(count) }
        }

        mutating func take(_ piece: UnsafeRawBufferPointer) {
            count += piece.count
            digester?.update(buffer: piece)
            if keepsBytes { bytes.append(contentsOf: piece) }
        }
    }

    /// De-chunks a body (RFC 9112 §7.1) into `collector` and returns the trailers; chunk extensions are ignored.
    private mutating func readChunkedBody(
        into collector: inout BodyCollector
    ) throws(ReadFailure) -> Result<[(name: String, value: String)], RejectedRequest> {
        // Every non-final chunk adds at least one byte to the body, which is capped, so this loop is bounded.
        while true {
            var lineBudget = 4096
            let sizeLine = try readLine(budget: &lineBudget)
            let sizeDigits = sizeLine.prefix { $0 != UInt8(ascii: ";") }.trimmingWhitespace()
            // Int(_:radix:) would also take a sign, which chunk-size does not allow.
            guard !sizeDigits.isEmpty, sizeDigits.count <= 15,
                sizeDigits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                let size = Int(String(decoding: sizeDigits, as: UTF8.self), radix: 16), size >= 0
            else { return .failure(RejectedRequest(status: 400, reason: "malformed chunk size")) }
            if size == 0 { break }
            guard collector.count + size <= maxBody else {
                return .failure(RejectedRequest(status: 413, reason: "body exceeds \(maxBody) bytes"))
            }
            try readBody(count: size, into: &collector)
            var crlfBudget = 2
            guard try readLine(budget: &crlfBudget).isEmpty else {
                return .failure(RejectedRequest(status: 400, reason: "chunk data not followed by CRLF"))
            }
        }
        var budget = limits.maxHeaderBytes
        var trailers: [(name: String, value: String)] = []
        // Each trailer line costs budget, so this ends.
        while true {
            let line = try readLine(budget: &budget)
            if line.isEmpty { break }
            guard let field = Self.parseField(line) else {
                return .failure(RejectedRequest(status: 400, reason: "malformed trailer field"))
            }
            trailers.append(field)
        }
        return .success(trailers)
    }

    /// Hands exactly `count` body bytes to `collector`: first what is already buffered, then
    /// straight from the socket, never asking for more than the body still needs (so the next
    /// request's bytes stay unread and nothing of the body piles up in `buffer`).
    private mutating func readBody(count: Int, into collector: inout BodyCollector) throws(ReadFailure) {
        var remaining = count
        let buffered = min(buffer.count - start, remaining)
        if buffered > 0 {
            buffer.withUnsafeBytes { collector.take(UnsafeRawBufferPointer(rebasing: $0[start..<(start + buffered)])) }
            start += buffered
            remaining -= buffered
            bodyBytesRead(buffered)
        }
        compactBuffer()
        let socket = socket
        // Each round receives at least one byte or throws, so rounds ≤ count.
        while remaining > 0 {
            try awaitReadable()
            let wanted = min(remaining, scratch.count)
            let result = scratch.withUnsafeMutableBytes {
                socket.receive(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<wanted]))
            }
            switch result {
            case let .received(received):
                scratch.withUnsafeBytes { collector.take(UnsafeRawBufferPointer(rebasing: $0[0..<received])) }
                remaining -= received
                bodyBytesRead(received)
            case .endOfStream:
                throw .endOfStream
            case .failed:
                throw wake.isSignalled ? .stopped : .failed
            }
        }
    }

    // MARK: - Buffered reading

    /// One line without its terminator (CRLF, or a bare LF, which RFC 9112 §2.2 lets recipients accept).
    /// The terminator's bytes count against `budget` too; exceeding it throws `.tooLong`.
    private mutating func readLine(budget: inout Int) throws(ReadFailure) -> [UInt8] {
        compactBuffer()
        var scanned = start
        // Each round scans new bytes or reads more, and the budget caps the bytes, so this ends.
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let length = newline + 1 - start
                guard length <= budget else { throw .tooLong }
                budget -= length
                var line = Array(buffer[start..<newline])
                start = newline + 1
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                guard !line.contains(UInt8(ascii: "\r")) else { throw .malformed }
                return line
            }
            guard buffer.count - start <= budget else { throw .tooLong }
            scanned = buffer.count
            try fill()
        }
    }

    /// Drops consumed bytes once they dominate the buffer, so memory stays proportional to what is pending.
    private mutating func compactBuffer() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// Appends whatever the socket delivers next, waiting at most the idle timeout;
    /// never moves existing bytes, so indices into `buffer` held by callers stay valid.
    private mutating func fill() throws(ReadFailure) {
        try awaitReadable()
        let socket = socket
        switch scratch.withUnsafeMutableBytes({ socket.receive(into: $0) }) {
        case let .received(count):
            scratch.withUnsafeBytes { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            peakBufferedBytes = max(peakBufferedBytes, buffer.count)
        case .endOfStream:
            throw .endOfStream
        case .failed:
            throw wake.isSignalled ? .stopped : .failed
        }
    }

    /// Waits until the socket has bytes (or EOF), at most the idle timeout.
    private func awaitReadable() throws(ReadFailure) {
        switch socket.waitReadable(wake: wake, timeoutMilliseconds: limits.idleTimeout.pollMilliseconds) {
        case .woken: throw .stopped
        case .timedOut: throw .timedOut
        case .failed: throw .failed
        case .readable: break
        }
    }
}

/// A request the server refuses, with the status to refuse it with.
struct RejectedRequest: Error {
    let status: Int
    let reason: String
}

extension StringProtocol {
    /// Strips the optional whitespace (SP / HTAB) HTTP allows around field values and list items.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" }
        let trimmed = scalars.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return String(String.UnicodeScalarView(trimmed))
    }
}

extension Collection<UInt8> {
    /// Strips SP / HTAB at both ends.
    fileprivate func trimmingWhitespace() -> [UInt8] {
        let front = drop { $0 == 0x20 || $0 == 0x09 }
        return Array(front.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
