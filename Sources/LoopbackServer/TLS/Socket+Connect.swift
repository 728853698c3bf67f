#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// Opens a TCP connection to `address` (an IPv4 or IPv6 literal, such as `127.0.0.1` or `::1`) on `port`.
    ///
    /// The connect runs non-blocking and is waited for with `poll()`: a loopback connect normally completes at
    /// once, but one to a listener whose backlog is full only ends when the kernel gives up on its SYN retries,
    /// minutes later. It gives up after `timeout`, or as soon as `wake` is signalled. The socket is blocking again
    /// when returned, with close-on-exec and (on Darwin) no SIGPIPE.
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)``: `ETIMEDOUT` after `timeout`, `ECANCELED`
    ///   when woken, `EINVAL` for an address that is not a literal, else the errno of the failing call.
    static func connect(
        toAddress address: String, port: Int, timeout: Duration, wake: WakePipe? = nil
    ) throws(LoopbackServerError) -> Socket {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
            #if canImport(Darwin)
            v4.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
        } else if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
            #if canImport(Darwin)
            v6.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
        } else {
            throw .socketFailed(operation: "connect to \(address)", errno: EINVAL)
        }
        #if canImport(Glibc)
        let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = Darwin.socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        let socket = Socket(fd: fd)
        // Captures the code before close() can overwrite errno.
        func failure(_ operation: String, _ code: Int32) -> LoopbackServerError {
            socket.close()
            return .socketFailed(operation: operation, errno: code)
        }
        #if canImport(Darwin)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let started: Int32
        if family == AF_INET {
            started = withUnsafePointer(to: &v4) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connectSystemCall(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            started = withUnsafePointer(to: &v6) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connectSystemCall(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        if started != 0 {
            guard errno == EINPROGRESS || errno == EINTR else { throw failure("connect", errno) }
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            var completed = false
            // Every round waits until the deadline, an event, or an interruption; the deadline bounds the rounds.
            while !completed {
                let remaining = clock.now.duration(to: deadline)
                guard remaining > .zero else { throw failure("connect", ETIMEDOUT) }
                var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                if let wake { fds.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)) }
                let ready = poll(&fds, nfds_t(fds.count), remaining.pollMilliseconds)
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw failure("poll", errno)
                }
                if fds.count > 1 && fds[1].revents != 0 { throw failure("connect", ECANCELED) }
                completed = fds[0].revents != 0
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { throw failure("getsockopt", errno) }
            guard code == 0 else { throw failure("connect", code) }
        }
        _ = fcntl(fd, F_SETFL, flags)
        return socket
    }

    /// Makes a `send` that cannot progress for `timeout` fail (`EAGAIN`) instead of blocking for good: a peer
    /// that stops reading cannot hold a thread longer than that.
    func setSendTimeout(_ timeout: Duration) {
        var value = timeval(
            tv_sec: .init(timeout.components.seconds),
            tv_usec: .init(timeout.components.attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// `connect(2)`, under a name that the static `Socket.connect(toAddress:port:timeout:wake:)` does not shadow.
#if canImport(Glibc)
private let connectSystemCall = Glibc.connect
#else
private let connectSystemCall = Darwin.connect
#endif
