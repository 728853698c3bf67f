import Foundation

/// A TCP port on 127.0.0.1 that refuses every connection, for as long as this value lives.
///
/// The port is bound and never listened on: a connection to it is refused at once, and no other socket of the
/// machine can take the port meanwhile. The usual stand-in, the port of a server just stopped, is not safe while tests
/// run in parallel: another test's server may be given the same port between the stop and the connection.
package final class LoopbackClosedPort: Sendable {
    private let socket: Socket
    /// The port the kernel chose.
    package let port: Int

    /// Binds the port.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if the socket cannot be set up.
    package init() throws(LoopbackServerError) {
        (socket, port) = try Socket.bindOnLoopback(listening: nil)
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
