#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

#if canImport(Glibc)
private let rawSend = Glibc.send
private let rawClose = Glibc.close
#else
private let rawSend = Darwin.send
private let rawClose = Darwin.close
#endif

/// Errors of the raw test client.
struct TestClientError: Error, CustomStringConvertible {
    let description: String
}

/// A parsed response as the test client saw it on the wire.
struct TestResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    /// Chunk sizes in arrival order when the body was chunked, else empty.
    let chunkSizes: [Int]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A deliberately plain blocking POSIX socket client, so the server is tested independently of
/// URLSession. Every receive has a timeout (SO_RCVTIMEO), so no test can hang on a silent server.
final class TestClient {
    private let fd: Int32
    /// Received bytes; those before `start` are consumed (dropped in bulk, so long runs stay linear).
    private var buffer: [UInt8] = []
    private var start = 0
    private var closed = false

    /// Received but not yet consumed bytes.
    private var pending: ArraySlice<UInt8> { buffer[start...] }

    /// Connects to 127.0.0.1:`port`; throws with the errno on failure (e.g. ECONNREFUSED).
    init(port: Int, receiveTimeout: Duration = .seconds(10)) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestClientError(description: "socket() failed: \(errno)") }
        var timeout = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            // deinit still runs after a throwing init, so mark it closed to avoid closing a reused descriptor.
            close()
            throw TestClientError(description: "connect() failed: errno \(code)")
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        _ = rawClose(fd)
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try send(buffer: $0) }
    }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { try send(buffer: $0) }
    }

    func send(buffer bytes: UnsafeRawBufferPointer) throws {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var offset = 0
        // Each round sends at least one byte or throws.
        while offset < bytes.count {
            let sent = rawSend(fd, bytes.baseAddress! + offset, bytes.count - offset, flags)
            guard sent > 0 else { throw TestClientError(description: "send() failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Whether bytes (or EOF) arrive within `milliseconds`; used only where the server is known to hold back far longer.
    func isReadable(within milliseconds: Int32) -> Bool {
        if !pending.isEmpty { return true }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, milliseconds) > 0
    }

    /// Appends the next bytes; returns false at EOF. Throws on timeout or error.
    @discardableResult
    private func fill() throws -> Bool {
        if start > 0 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count == 0 { return false }
        throw TestClientError(description: "recv() failed: errno \(errno)")
    }

    /// Takes the first `count` pending bytes.
    private func consume(_ count: Int) -> [UInt8] {
        let bytes = Array(buffer[start..<(start + count)])
        start += count
        return bytes
    }

    /// Reads until the peer closes; bounded by `limit` bytes and the receive timeout.
    func readUntilEOF(limit: Int = 16 * 1024 * 1024) throws -> [UInt8] {
        while pending.count <= limit, try fill() {}
        return consume(pending.count)
    }

    /// Reads and discards until the peer closes, returning how many bytes came and whether the
    /// connection ended cleanly (EOF, not reset); for bodies too big to keep.
    func drainUntilEOF(limit: Int = 1 << 40) -> (count: Int, cleanEOF: Bool) {
        var total = pending.count
        buffer = []
        start = 0
        var chunk = [UInt8](repeating: 0, count: 262_144)
        // Each round receives at least one byte or ends; `limit` bounds the rounds.
        while total <= limit {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (total, true) }
            if count < 0 { return (total, false) }
            total += count
        }
        return (total, false)
    }

    /// Reads exactly `count` bytes, handing them to `check` in pieces as they arrive instead of keeping them.
    func stream(_ count: Int, _ check: (ArraySlice<UInt8>) -> Void) throws {
        var remaining = count
        // Each round consumes at least one byte or throws.
        while remaining > 0 {
            if pending.isEmpty {
                guard try fill() else {
                    throw TestClientError(description: "EOF with \(remaining) of \(count) bytes missing")
                }
            }
            let taken = min(remaining, pending.count)
            check(buffer[start..<(start + taken)])
            start += taken
            remaining -= taken
        }
    }

    /// Whether the server closed the connection (EOF with nothing pending).
    func readsEOF() throws -> Bool {
        try readUntilEOF().isEmpty
    }

    /// Whether the connection ends (EOF or reset) before the receive timeout, with nothing more received.
    ///
    /// `stop()` tears connections down: input the server had not read yet makes the kernel send a reset.
    func seesConnectionEnd() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return pending.isEmpty && (count == 0 || (count < 0 && errno == ECONNRESET))
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while pending.count < count {
            guard try fill() else { throw TestClientError(description: "EOF after \(pending.count) of \(count) bytes") }
        }
        return consume(count)
    }

    /// Reads one CRLF-terminated line (without the CRLF).
    func readLine(limit: Int = 1 << 20) throws -> String {
        var scanned = start
        for _ in 0..<10_000 {
            if let index = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = consume(index + 1 - start)
                line.removeLast()
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard pending.count < limit else { throw TestClientError(description: "line too long") }
            let offset = buffer.count - start
            guard try fill() else { throw TestClientError(description: "EOF inside a line") }
            // fill() may have compacted the buffer; resume scanning where the new bytes begin.
            scanned = start + offset
        }
        throw TestClientError(description: "no line")
    }

    /// Reads one chunk of a chunked body: its data, or `nil` for the last chunk (whose empty trailer
    /// section it consumes too).
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine, radix: 16), size >= 0 else {
            throw TestClientError(description: "bad chunk size line: \(sizeLine)")
        }
        if size == 0 {
            guard try readLine().isEmpty else { throw TestClientError(description: "trailers not expected") }
            return nil
        }
        let data = try readExactly(size)
        guard try readLine().isEmpty else { throw TestClientError(description: "chunk without CRLF") }
        return data
    }

    /// Reads a status line and header section.
    func readHead() throws -> (status: Int, headers: [(name: String, value: String)]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw TestClientError(description: "bad status line: \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        for _ in 0..<10_000 {
            let line = try readLine()
            if line.isEmpty { return (status, headers) }
            guard let colon = line.firstIndex(of: ":") else {
                throw TestClientError(description: "bad header: \(line)")
            }
            headers.append(
                (
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                ))
        }
        throw TestClientError(description: "too many headers")
    }

    /// Reads one whole response, framed by Content-Length, chunking, or EOF.
    func readResponse(toHEAD: Bool = false) throws -> TestResponse {
        let (status, headers) = try readHead()
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        if toHEAD || status == 204 || status == 304 || (100..<200).contains(status) {
            return TestResponse(status: status, headers: headers, body: [], chunkSizes: [])
        }
        if header("transfer-encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            var sizes: [Int] = []
            for _ in 0..<1_000_000 {
                guard let chunk = try readChunk() else {
                    return TestResponse(status: status, headers: headers, body: body, chunkSizes: sizes)
                }
                sizes.append(chunk.count)
                body += chunk
            }
            throw TestClientError(description: "too many chunks")
        }
        if let length = header("content-length").flatMap(Int.init) {
            return TestResponse(status: status, headers: headers, body: try readExactly(length), chunkSizes: [])
        }
        return TestResponse(status: status, headers: headers, body: try readUntilEOF(), chunkSizes: [])
    }
}
