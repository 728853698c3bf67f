import Foundation
import NetKitLock

/// A server on 127.0.0.1 that answers every request with the same bytes, exactly as given, then closes the
/// connection: for answers ``LoopbackServer`` refuses to send because they are not well-formed or not HTTP/1.1
/// as it writes it (header bytes beyond ASCII, a status line without a reason phrase, garbage, HTTP/0.9).
///
/// Each connection is read up to the end of the request head (at most 64 KiB), answered, and closed; the server
/// stops when released or when ``stop()`` is called.
package final class LoopbackRawServer: Sendable {
    private let socket: Socket
    /// Shared with the accepting thread, which must not keep the server alive.
    private final class Flag: Sendable {
        let raised = Lock(false)
    }

    private let stopped = Flag()
    /// The port the kernel chose.
    package let port: Int

    /// Starts answering with `response`.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if the socket cannot be set up.
    package init(response: [UInt8]) throws(LoopbackServerError) {
        let (socket, port) = try Socket.listenOnLoopback(backlog: 16)
        self.socket = socket
        self.port = port
        let stopped = self.stopped
        let thread = Thread {
            while let client = socket.accept() {
                Self.answer(client, with: response)
                if stopped.raised.withLock({ $0 }) { break }
            }
            // Closed here, not in deinit, so no accept() can meet a descriptor number already reused.
            socket.close()
        }
        thread.start()
    }

    private static func answer(_ client: Socket, with response: [UInt8]) {
        defer { client.close() }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count < 64 * 1024 {
            let result = buffer.withUnsafeMutableBytes { client.receive(into: $0) }
            guard case .received(let count) = result else { return }
            head += buffer[..<count]
            if head.firstRange(of: end) != nil { break }
        }
        _ = client.sendAll(response[...])
        client.shutdownWrite()
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    package var baseURL: URL {
        // Cannot fail: the string is a literal scheme and host with a decimal port.
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Stops accepting connections.
    package func stop() {
        let first = stopped.raised.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        // Wakes the thread blocked in accept().
        if first { socket.shutdownBoth() }
    }

    deinit {
        stop()
    }
}
