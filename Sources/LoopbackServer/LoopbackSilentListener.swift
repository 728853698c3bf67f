import Foundation

/// A TCP port on 127.0.0.1 that accepts connections (the kernel completes them in its backlog) but
/// never reads a byte.
///
/// An upload to it stalls once the socket buffers are full, with the body's file open and the client
/// still waiting: the one state in which a test can cancel mid-upload without racing the end of the
/// transfer, and then check that the client stopped reading and closed what it had opened.
package final class LoopbackSilentListener: Sendable {
    private let socket: Socket
    /// The port the kernel chose.
    package let port: Int

    /// Starts listening.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if the socket cannot be set up.
    package init() throws(LoopbackServerError) {
        (socket, port) = try Socket.listenOnLoopback(backlog: 8)
    }

    deinit {
        socket.close()
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    package var baseURL: URL {
        // Cannot fail: the string is a literal scheme and host with a decimal port.
        URL(string: "http://127.0.0.1:\(port)")!
    }
}
