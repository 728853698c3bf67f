#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thin, copyable handle over a POSIX socket descriptor.
///
/// It owns nothing: whoever creates the descriptor decides when to close it. That keeps the
/// type trivially `Sendable`, and lets the server shut a connection down from `stop()` while
/// the connection's own thread is blocked on it.
struct Socket: Sendable, Hashable {
    /// The raw descriptor.
    let fd: Int32

    /// What a bounded wait for readability ended with.
    enum WaitResult: Equatable {
        case readable
        case woken
        case timedOut
        case failed
    }

    /// What one `receive` call produced.
    enum ReceiveResult {
        /// This many bytes were placed in the caller's buffer.
        case received(Int)
        case endOfStream
        case failed(Int32)
    }

    // MARK: - Creation

    /// Creates a TCP socket listening on 127.0.0.1 on a port the kernel picks.
    ///
    /// Only the loopback address is ever bound, so a test run never exposes anything to the network.
    static func listenOnLoopback(backlog: Int32 = 128) throws(LoopbackServerError) -> (socket: Socket, port: Int) {
        try bindOnLoopback(listening: backlog)
    }

    /// Creates a TCP socket bound to 127.0.0.1 on a port the kernel picks, listening with `backlog` unless it is
    /// `nil`: a socket bound and not listening refuses every connection and keeps its port from any other socket.
    static func bindOnLoopback(listening backlog: Int32?) throws(LoopbackServerError) -> (socket: Socket, port: Int) {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        let socket = Socket(fd: fd)
        // Captures errno before close() can overwrite it.
        func failure(_ operation: String) -> LoopbackServerError {
            let code = errno
            socket.close()
            return .socketFailed(operation: operation, errno: code)
        }
        #if canImport(Darwin)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #endif
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw failure("bind") }
        if let backlog, listen(fd, backlog) != 0 { throw failure("listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        return (socket, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// Accepts one pending connection; `nil` when none could be accepted.
    func accept() -> Socket? {
        #if canImport(Glibc)
        let client = Glibc.accept(fd, nil, nil)
        #else
        let client = Darwin.accept(fd, nil, nil)
        #endif
        guard client >= 0 else { return nil }
        // accept4() is not exported to Swift; the window before this call only matters to code that forks.
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        // Darwin has no MSG_NOSIGNAL; without this a write to a closed peer kills the test process.
        var one: Int32 = 1
        _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return Socket(fd: client)
    }

    // MARK: - Options

    /// Turns Nagle's algorithm off so every `send` leaves as its own segment without waiting for an ACK.
    func setNoDelay() {
        var one: Int32 = 1
        #if canImport(Glibc)
        let level = Int32(IPPROTO_TCP)
        #else
        let level = IPPROTO_TCP
        #endif
        _ = setsockopt(fd, level, TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    // MARK: - I/O

    /// Waits until the socket is readable, `wake` is signalled, or `timeoutMilliseconds` pass (-1: no limit).
    func waitReadable(wake: WakePipe, timeoutMilliseconds: Int32) -> WaitResult {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        // EINTR is the only reason to go round again; a handful of retries is plenty.
        for _ in 0..<16 {
            let ready = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            if ready == 0 { return .timedOut }
            if fds[1].revents != 0 { return .woken }
            return .readable
        }
        return .failed
    }

    /// Whether the peer has closed (or reset) its side, judged without consuming any pending bytes.
    ///
    /// `nil` means "cannot tell": bytes are waiting (for instance a pipelined request), or nothing happened.
    func peekPeerClosed() -> Bool? {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if count == 0 { return true }
        if count > 0 { return nil }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return false }
        return true
    }

    /// Writes all of `bytes` with one `send` call per attempt; `false` if the peer went away.
    ///
    /// A short write is finished with further calls, so callers that want distinct segments must
    /// pass each segment separately.
    func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        var remaining = bytes
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var interruptions = 0
        // Each round makes progress, fails, or counts an interruption, so the rounds are bounded.
        while !remaining.isEmpty {
            let sent = remaining.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
            if sent < 0 {
                interruptions += 1
                if errno == EINTR && interruptions < 16 { continue }
                return false
            }
            if sent == 0 { return false }
            remaining = remaining.dropFirst(sent)
        }
        return true
    }

    /// Writes the given pieces in order, as one `sendmsg` call when the kernel takes them all at once
    /// (so a chunk's size line, data and CRLF leave together); `false` if the peer went away.
    ///
    /// The pieces are read in place: nothing is copied, which keeps large streamed bodies cheap.
    func sendAll(_ pieces: [UnsafeRawBufferPointer]) -> Bool {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var remaining = pieces.filter { !$0.isEmpty }
        var interruptions = 0
        // Each round sends at least one byte, fails, or counts an interruption, so the rounds are bounded.
        while !remaining.isEmpty {
            var vectors = remaining.map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
            }
            let sent = vectors.withUnsafeMutableBufferPointer { vectors in
                var message = msghdr()
                message.msg_iov = vectors.baseAddress
                message.msg_iovlen = numericCast(vectors.count)
                return sendmsg(fd, &message, flags)
            }
            if sent < 0 {
                interruptions += 1
                if errno == EINTR && interruptions < 16 { continue }
                return false
            }
            if sent == 0 { return false }
            var consumed = sent
            while let first = remaining.first, consumed >= first.count {
                consumed -= first.count
                remaining.removeFirst()
            }
            if consumed > 0, let first = remaining.first {
                remaining[0] = UnsafeRawBufferPointer(rebasing: first[consumed...])
            }
        }
        return true
    }

    /// Reads whatever is available into `buffer`, without allocating; blocks only if nothing is.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> ReceiveResult {
        for _ in 0..<16 {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .received(count) }
            if count == 0 { return .endOfStream }
            if errno == EINTR { continue }
            return .failed(errno)
        }
        return .failed(EINTR)
    }

    /// What the connection's TCP has carried so far: bytes the peer's TCP acknowledged, and bytes handed to the
    /// kernel that it has not acknowledged yet (sent or still queued). `nil` where the kernel does not say (only
    /// Linux is read).
    func transmission() -> (acknowledged: UInt64, unacknowledged: Int)? {
        #if os(Linux)
        // `tcpi_bytes_acked` (Linux 4.1) lies past the end of glibc's `struct tcp_info`: read it at its offset in
        // the kernel's layout, which only ever grows at the end.
        let acknowledgedOffset = 120
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0,
            Int(length) >= acknowledgedOffset + 8
        else { return nil }
        let acknowledged = info.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: acknowledgedOffset, as: UInt64.self)
        }
        var queued: Int32 = 0
        guard ioctl(fd, UInt(TIOCOUTQ), &queued) == 0 else { return nil }
        return (acknowledged, Int(queued))
        #else
        return nil
        #endif
    }

    /// Stops further sends (the peer sees EOF) while still letting us read what it sends.
    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Wakes any thread blocked on this socket; the descriptor itself stays valid until `close()`.
    func shutdownBoth() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Releases the descriptor.
    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}

extension Socket {
    /// How an interruptible pause ended.
    enum PauseOutcome: Equatable {
        case elapsed
        case peerClosed
        case woken
        /// The extra descriptor given to the pause became readable (a ``LoopbackGate`` opened).
        case signalled
    }

    /// Waits for `duration` like a sleep, but ends early when the peer closes (or resets) the
    /// connection, `wake` is signalled, or `signal` (a descriptor, if given) becomes readable.
    ///
    /// Used to simulate server latency and to park streaming producers: a client that gives up
    /// must not keep a server thread busy. `poll()` runs in slices of at most a second so no
    /// single call can overshoot by much.
    func pause(for duration: Duration, wake: WakePipe, signal: Int32? = nil) -> PauseOutcome {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        // Once unread bytes are pending (a pipelined request) readability says nothing about the
        // peer, so from then on only hang-ups and errors are watched.
        var watchReadable = true
        // Every round sleeps up to a slice or observes an event; spurious wake-ups are rare,
        // and the cap bounds them anyway.
        for _ in 0..<1_000_000 {
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { return .elapsed }
            let slice = min(remaining.pollMilliseconds, 1000)
            var fds = [
                pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: watchReadable ? Int16(POLLIN) : 0, revents: 0),
            ]
            if let signal { fds.append(pollfd(fd: signal, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), slice)
            if ready < 0 {
                if errno == EINTR { continue }
                return .peerClosed
            }
            if ready == 0 { continue }
            if fds[0].revents != 0 { return .woken }
            if fds.count > 2 && fds[2].revents != 0 { return .signalled }
            let events = fds[1].revents
            if events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .peerClosed }
            if events & Int16(POLLIN) != 0 {
                switch peekPeerClosed() {
                case true?: return .peerClosed
                case nil: watchReadable = false
                case false?: continue
                }
            }
        }
        return .elapsed
    }
}
