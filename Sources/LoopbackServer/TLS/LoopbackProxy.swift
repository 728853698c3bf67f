import Foundation
import NetKitLock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP and SOCKS5 proxy on 127.0.0.1 for tests of proxy support: `CONNECT` tunnels, absolute-form
/// requests and SOCKS5 `CONNECT`, all on the same port.
///
/// Each accepted connection gets its own thread. A connection whose first byte is `0x05` is a SOCKS5 client (see
/// below); any other reads one request head (at most 64 KiB) and then:
///
/// - for `CONNECT host:port HTTP/1.1`, connects to the target, answers `HTTP/1.1 200 Connection Established` and
///   relays bytes both ways (TLS and all) until the target closes, or both sides have;
/// - for an absolute-form request (`GET http://host:port/path HTTP/1.1`), connects to the target and sends it the
///   request in origin-form (`GET /path HTTP/1.1`) with the rest of the head, minus `Proxy-Authorization`,
///   `Proxy-Connection` and the other hop-by-hop fields, plus `Connection: close`; then relays the body and the
///   answer. One request per connection: the target closes after answering, and so does the proxy.
///
/// It only ever connects to the loopback interface: the target's host must be `127.0.0.1`, `localhost` or `::1`,
/// or a name `hosts` maps to one of those (so a test can name `service.test` without DNS). Anything else gets
/// `403 Forbidden` and is recorded in ``refused``; an unreachable target gets `502 Bad Gateway`.
///
/// With `requiredCredentials`, a request without a matching `Proxy-Authorization: Basic …` gets
/// `407 Proxy Authentication Required` with `Proxy-Authenticate: Basic realm="test"`.
///
/// SOCKS5 (RFC 1928) takes no authentication only: a greeting offering method `0x00` is answered `05 00`, any
/// other (or any greeting at all when `requiredCredentials` is set, as username/password is not spoken) `05 FF`
/// and closed. Then a `CONNECT` request naming an IPv4 address, a domain name or an IPv6 address follows the
/// same target rules as the HTTP side: a target beyond loopback gets reply `0x02` and is recorded in ``refused``,
/// one that cannot be connected `0x05` (refused), `0x03`, `0x04` or `0x01`; on success the reply is `0x00` and
/// bytes are relayed both ways as in a `CONNECT` tunnel, and the target is recorded in ``socksTunnels``.
/// `BIND` and `UDP ASSOCIATE` get `0x07`, an unknown address type `0x08`, a request of another version `0x01`;
/// every failure closes the connection after its reply. A malformed or truncated greeting is closed without
/// an answer once the client closes or goes quiet for the idle timeout.
///
/// Every wait is bounded by `idleTimeout` and ends on ``stop()`` (or `deinit`), which closes the listener and every
/// connection and joins the threads.
package final class LoopbackProxy: Sendable {
    private let core: Core

    /// Starts listening on 127.0.0.1 on a kernel-chosen port.
    /// - Parameters:
    ///   - hosts: names the proxy resolves itself, such as `["service.test": "127.0.0.1"]`; a name maps to
    ///     `127.0.0.1`, `localhost` or `::1`, anything else stays refused. Names are compared without case.
    ///   - requiredCredentials: when given, the Basic credentials every request must carry.
    ///   - idleTimeout: how long a connection may wait for a byte (head, body, or either side of a tunnel).
    /// - Throws: ``LoopbackServerError/socketFailed(operation:errno:)`` if the socket cannot be set up.
    package init(
        hosts: [String: String] = [:],
        requiredCredentials: (username: String, password: String)? = nil,
        idleTimeout: Duration = .seconds(30)
    ) throws(LoopbackServerError) {
        core = try Core(hosts: hosts, credentials: requiredCredentials, idleTimeout: idleTimeout)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// The port the kernel chose.
    package var port: Int { core.port }

    /// `http://127.0.0.1:<port>`, without a trailing slash: the proxy's own URL.
    package var url: URL {
        // Cannot fail: the string is a literal scheme and host with a decimal port.
        URL(string: "http://127.0.0.1:\(core.port)")!
    }

    /// The targets of the tunnels opened, in order, as the `CONNECT` requests named them (`127.0.0.1:8443`).
    package var tunnels: [String] { core.record.tunnels }

    /// The targets of the SOCKS5 tunnels opened, in order, as `host:port`: the address or name as the request
    /// gave it, an IPv6 address in brackets (`127.0.0.1:8443`, `service.test:80`, `[::1]:443`).
    package var socksTunnels: [String] { core.record.socksTunnels }

    /// The absolute-form targets forwarded, in order, as sent (`http://127.0.0.1:8080/path?query`).
    package var forwarded: [String] { core.record.forwarded }

    /// The targets refused because they are not on the loopback interface, in order: those answered with 403
    /// as the request named them, and SOCKS5 targets (answered with reply `0x02`) as `host:port`.
    package var refused: [String] { core.record.refused }

    /// The `Proxy-Authorization` values received, in order (requests without one add nothing).
    package var authorizations: [String] { core.record.authorizations }

    /// How many requests were answered with 407.
    package var challenges: Int { core.record.challenges }

    /// How many connections were accepted.
    package var acceptedConnections: Int { core.record.acceptedConnections }

    /// Closes the listener and every connection, and joins the threads (waiting at most 10 s). Idempotent.
    package func stop() {
        core.stop()
    }
}

extension LoopbackProxy {
    /// What the proxy has seen.
    fileprivate struct Record: Sendable {
        var tunnels: [String] = []
        var socksTunnels: [String] = []
        var forwarded: [String] = []
        var refused: [String] = []
        var authorizations: [String] = []
        var challenges = 0
        var acceptedConnections = 0
    }

    /// One request head as received.
    fileprivate struct RequestHead {
        let method: String
        let target: String
        let version: String
        let headers: [(name: String, value: String)]

        /// Parses the bytes before the blank line; `nil` when the request line or a field is malformed.
        init?(_ bytes: ArraySlice<UInt8>) {
            let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
            method = String(parts[0])
            target = String(parts[1])
            version = String(parts[2])
            var headers: [(name: String, value: String)] = []
            for line in lines.dropFirst() where !line.isEmpty {
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return nil }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers.append((String(line[..<colon]), value))
            }
            self.headers = headers
        }

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Everything the proxy's threads share; they retain it, never the proxy, so releasing the proxy stops it.
    fileprivate final class Core: Sendable {
        let port: Int
        private let listener: Socket
        private let wake: WakePipe
        /// Keys lowercased.
        private let hosts: [String: String]
        private let expectedAuthorization: String?
        private let idleTimeout: Duration
        /// Lets `stop()` join every thread; entered under the state lock whenever a thread is counted.
        private let threadsDone = DispatchGroup()
        private let state = Lock(State())

        private struct State {
            var stopped = false
            var wakeClosed = false
            var liveThreads = 0
            /// Sockets still open, client and target sides; `stop()` shuts these down to unblock their threads.
            var openSockets: Set<Socket> = []
            var record = Record()
        }

        /// The longest request head read.
        private static let maximumHeadBytes = 64 * 1024

        init(
            hosts: [String: String], credentials: (username: String, password: String)?, idleTimeout: Duration
        ) throws(LoopbackServerError) {
            let wake = try WakePipe.make()
            do {
                (listener, port) = try Socket.listenOnLoopback(backlog: 64)
            } catch {
                wake.close()
                throw error
            }
            self.wake = wake
            self.hosts = Dictionary(
                hosts.map { ($0.key.lowercased(), $0.value.lowercased()) }, uniquingKeysWith: { _, last in last })
            expectedAuthorization = credentials.map {
                Data("\($0.username):\($0.password)".utf8).base64EncodedString()
            }
            self.idleTimeout = idleTimeout
        }

        var record: Record { state.withLock { $0.record } }

        /// Starts the accept thread; separate from `init` because the thread captures `self`.
        func start() {
            state.withLock { state in
                state.liveThreads += 1
                threadsDone.enter()
            }
            spawn(name: "LoopbackProxy :\(port) accept") { [self] in acceptLoop() }
        }

        // MARK: Threads

        /// Runs `body` on a new thread; the caller has already counted it in `liveThreads` and entered `threadsDone`.
        private func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
            let thread = Thread { [self] in
                body()
                state.withLock { state in
                    state.liveThreads -= 1
                    closeWakeIfIdle(&state)
                }
                threadsDone.leave()
            }
            thread.name = name
            thread.start()
        }

        private func acceptLoop() {
            defer { listener.close() }
            // Ends when the wake pipe is signalled; every other round accepts (or fails to accept) one connection.
            while true {
                switch listener.waitReadable(wake: wake, timeoutMilliseconds: -1) {
                case .woken, .failed: return
                case .timedOut: continue
                case .readable: break
                }
                guard let client = listener.accept() else {
                    // Out of descriptors, say: back off briefly instead of spinning on a readable listener.
                    if wake.wait(milliseconds: 50) { return }
                    continue
                }
                client.setNoDelay()
                let number: Int? = state.withLock { state in
                    guard !state.stopped else { return nil }
                    state.openSockets.insert(client)
                    state.record.acceptedConnections += 1
                    state.liveThreads += 1
                    threadsDone.enter()
                    return state.record.acceptedConnections
                }
                guard let number else {
                    client.close()
                    return
                }
                spawn(name: "LoopbackProxy :\(port) #\(number)") { [self] in
                    serve(client)
                    release(client)
                }
            }
        }

        /// Counts `socket` as open, so `stop()` shuts it down; `false` (and closed) when already stopped.
        private func adopt(_ socket: Socket) -> Bool {
            let adopted = state.withLock { state in
                guard !state.stopped else { return false }
                state.openSockets.insert(socket)
                return true
            }
            if !adopted { socket.close() }
            return adopted
        }

        /// Closes `socket` under the lock, so `stop()` can never shut down a descriptor number already reused.
        private func release(_ socket: Socket) {
            state.withLock { state in
                state.openSockets.remove(socket)
                socket.close()
            }
        }

        private func note(_ change: (inout Record) -> Void) {
            state.withLock { change(&$0.record) }
        }

        /// Closes the wake pipe once stopped and no thread can poll it any more.
        private func closeWakeIfIdle(_ state: inout State) {
            guard state.stopped, state.liveThreads == 0, !state.wakeClosed else { return }
            state.wakeClosed = true
            wake.close()
        }

        func stop() {
            let first = state.withLock { state in
                guard !state.stopped else { return false }
                state.stopped = true
                // Signalled under the lock so the last exiting thread cannot close the pipe first.
                wake.signal()
                // Unblocks threads in recv() or send() on either side of a connection.
                for socket in state.openSockets { socket.shutdownBoth() }
                closeWakeIfIdle(&state)
                return true
            }
            // Every thread wakes at once; the bound only keeps a wedged one from hanging the test that stops.
            if first { _ = threadsDone.wait(timeout: .now() + .seconds(10)) }
        }

        // MARK: Serving

        /// Reads one request head, or a SOCKS5 handshake, from `client` and handles it; the caller closes `client`.
        private func serve(_ client: Socket) {
            guard let first = peekFirstByte(client) else { return }
            if first == SOCKS5Handshake.version { return socks5(client) }
            guard let (headBytes, leftover) = readHead(client) else { return }
            guard let head = RequestHead(headBytes) else {
                return refuse(client, status: 400, reason: "Bad Request", message: "malformed request head")
            }
            let authorization = head.header("Proxy-Authorization")
            if let authorization { note { $0.authorizations.append(authorization) } }
            if let expectedAuthorization, !Self.matches(authorization, expected: expectedAuthorization) {
                note { $0.challenges += 1 }
                return refuse(
                    client, status: 407, reason: "Proxy Authentication Required", message: "credentials required",
                    extraHeaders: "Proxy-Authenticate: Basic realm=\"test\"\r\n")
            }
            if head.method.uppercased() == "CONNECT" {
                tunnel(client, head: head, leftover: leftover)
            } else {
                forward(client, head: head, leftover: leftover)
            }
        }

        private func tunnel(_ client: Socket, head: RequestHead, leftover: ArraySlice<UInt8>) {
            guard let (host, port) = Self.authority(head.target, defaultPort: nil) else {
                return refuse(client, status: 400, reason: "Bad Request", message: "CONNECT needs host:port")
            }
            guard let address = resolve(host) else {
                note { $0.refused.append(head.target) }
                return refuse(client, status: 403, reason: "Forbidden", message: "only loopback targets")
            }
            guard let upstream = open(address, port) else {
                return refuse(client, status: 502, reason: "Bad Gateway", message: "cannot connect to \(head.target)")
            }
            defer { release(upstream) }
            // Recorded before the answer, so a test that has seen its request succeed also sees the record.
            note { $0.tunnels.append(head.target) }
            guard client.sendAll(Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)[...]) else { return }
            // Bytes the client sent without waiting for the answer (a TLS ClientHello) belong to the target.
            if !leftover.isEmpty && !upstream.sendAll(leftover) { return }
            relay(client, upstream)
        }

        private func forward(_ client: Socket, head: RequestHead, leftover: ArraySlice<UInt8>) {
            let prefix = "http://"
            guard head.target.lowercased().hasPrefix(prefix) else {
                return refuse(
                    client, status: 400, reason: "Bad Request",
                    message: "expected CONNECT or an absolute-form http:// target")
            }
            let rest = head.target.dropFirst(prefix.count)
            let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            // Userinfo is no part of where to connect.
            let authorityText = rest[..<pathStart].split(separator: "@").last.map(String.init) ?? ""
            var path = String(rest[pathStart...].prefix { $0 != "#" })
            if !path.hasPrefix("/") { path = "/" + path }
            guard let (host, port) = Self.authority(authorityText, defaultPort: 80) else {
                return refuse(client, status: 400, reason: "Bad Request", message: "bad target authority")
            }
            guard let address = resolve(host) else {
                note { $0.refused.append(head.target) }
                return refuse(client, status: 403, reason: "Forbidden", message: "only loopback targets")
            }
            guard let upstream = open(address, port) else {
                return refuse(client, status: 502, reason: "Bad Gateway", message: "cannot connect to \(authorityText)")
            }
            defer { release(upstream) }
            note { $0.forwarded.append(head.target) }
            // Hop-by-hop fields are the proxy's own business (RFC 9110 §7.6.1), including those `Connection` names.
            var dropped: Set<String> = ["proxy-authorization", "proxy-connection", "connection", "keep-alive", "te"]
            for field in head.headers where field.name.lowercased() == "connection" {
                for token in field.value.split(separator: ",") {
                    dropped.insert(token.trimmingCharacters(in: .whitespaces).lowercased())
                }
            }
            var text = "\(head.method) \(path) \(head.version)\r\n"
            if head.header("Host") == nil { text += "Host: \(authorityText)\r\n" }
            for field in head.headers where !dropped.contains(field.name.lowercased()) {
                text += "\(field.name): \(field.value)\r\n"
            }
            text += "Connection: close\r\n\r\n"
            guard upstream.sendAll(Array(text.utf8)[...]) else { return }
            if !leftover.isEmpty && !upstream.sendAll(leftover) { return }
            relay(client, upstream)
        }

        /// Connects to the target and counts the socket as open; `nil` when that fails or the proxy stopped.
        private func open(_ address: String, _ port: Int) -> Socket? {
            try? connectUpstream(address, port).get()
        }

        /// Connects to the target and counts the socket as open; the errno when that fails (`ECANCELED` when
        /// the proxy stopped).
        private func connectUpstream(_ address: String, _ port: Int) -> Result<Socket, ConnectFailure> {
            let socket: Socket
            do {
                socket = try Socket.connect(toAddress: address, port: port, timeout: idleTimeout, wake: wake)
            } catch {
                guard case .socketFailed(_, let code) = error else { return .failure(ConnectFailure(code: EIO)) }
                return .failure(ConnectFailure(code: code))
            }
            guard adopt(socket) else { return .failure(ConnectFailure(code: ECANCELED)) }
            socket.setNoDelay()
            return .success(socket)
        }

        /// Why a connection to a target failed.
        private struct ConnectFailure: Error {
            let code: Int32
        }

        /// The loopback address to connect to for `host`, after the test's name map; `nil` for anything that
        /// is not on the loopback interface.
        private func resolve(_ host: String) -> String? {
            func unbracketed(_ name: String) -> String {
                name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
            }
            let name = unbracketed(host.lowercased())
            switch unbracketed(hosts[name] ?? name) {
            case "127.0.0.1", "localhost": return "127.0.0.1"
            case "::1": return "::1"
            default: return nil
            }
        }

        /// Splits `host:port` (or `[v6]:port`); a missing port is `defaultPort`, and without one it is an error.
        private static func authority(_ text: String, defaultPort: Int?) -> (host: String, port: Int)? {
            let host: Substring
            let portText: Substring?
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]") else { return nil }
                host = text[...close]
                let after = text[text.index(after: close)...]
                guard after.isEmpty || after.hasPrefix(":") else { return nil }
                portText = after.isEmpty ? nil : after.dropFirst()
            } else if let colon = text.lastIndex(of: ":") {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            } else {
                host = text[...]
                portText = nil
            }
            guard !host.isEmpty else { return nil }
            guard let portText else { return defaultPort.map { (String(host), $0) } }
            guard let port = Int(portText), (1...65_535).contains(port) else { return nil }
            return (String(host), port)
        }

        /// Whether `authorization` is `Basic <expected>` (the scheme's case does not matter).
        private static func matches(_ authorization: String?, expected: String) -> Bool {
            guard let authorization else { return false }
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "basic" else { return false }
            return parts[1].trimmingCharacters(in: .whitespaces) == expected
        }

        // MARK: SOCKS5

        /// What reading one SOCKS5 message gave.
        private enum SOCKS5Read<Value> {
            case parsed(Value)
            case malformed(SOCKS5Handshake.Reply)
            /// The client closed, went quiet for the idle timeout, or the proxy stopped.
            case ended
        }

        /// Serves a SOCKS5 client: greeting, request, then the tunnel; the caller closes `client`.
        private func socks5(_ client: Socket) {
            // Bytes received and not yet parsed; never more than the longest message.
            var received: [UInt8] = []
            let greeting: SOCKS5Handshake.Greeting
            switch readSOCKS5(client, &received, limit: SOCKS5Handshake.maximumGreetingBytes, SOCKS5Handshake.greeting)
            {
            case .parsed(let value): greeting = value
            case .malformed, .ended: return
            }
            // Credentials would need RFC 1929's username/password method, which this proxy does not speak.
            guard greeting.offersNoAuthentication, expectedAuthorization == nil else {
                return finish(client, sending: SOCKS5Handshake.methodAnswer(SOCKS5Handshake.noAcceptableMethods))
            }
            guard client.sendAll(SOCKS5Handshake.methodAnswer(SOCKS5Handshake.noAuthentication)[...]) else { return }
            let request: SOCKS5Handshake.Request
            switch readSOCKS5(client, &received, limit: SOCKS5Handshake.maximumRequestBytes, SOCKS5Handshake.request)
            {
            case .parsed(let value): request = value
            case .malformed(let reply): return finish(client, sending: SOCKS5Handshake.reply(reply))
            case .ended: return
            }
            guard request.command == .connect else {
                return finish(client, sending: SOCKS5Handshake.reply(.commandNotSupported))
            }
            guard let address = resolve(request.host) else {
                note { $0.refused.append(request.authority) }
                return finish(client, sending: SOCKS5Handshake.reply(.notAllowedByRuleset))
            }
            let upstream: Socket
            switch connectUpstream(address, request.port) {
            case .success(let socket): upstream = socket
            case .failure(let failure): return finish(client, sending: SOCKS5Handshake.reply(Self.reply(for: failure)))
            }
            defer { release(upstream) }
            // Recorded before the answer, so a test that has seen its request succeed also sees the record.
            note { $0.socksTunnels.append(request.authority) }
            guard client.sendAll(SOCKS5Handshake.reply(.succeeded)[...]) else { return }
            // Bytes the client sent without waiting for the reply belong to the target.
            if !received.isEmpty && !upstream.sendAll(received[...]) { return }
            relay(client, upstream)
        }

        /// Reads until `received` holds one whole message, which is then removed from it; every read is bounded by
        /// `limit` (the longest such message) and every wait by the idle timeout.
        private func readSOCKS5<Value>(
            _ client: Socket, _ received: inout [UInt8], limit: Int,
            _ parse: (ArraySlice<UInt8>) -> SOCKS5Handshake.Parse<Value>
        ) -> SOCKS5Read<Value> {
            var buffer = [UInt8](repeating: 0, count: limit)
            // Each round parses, or reads at least one byte and at most up to `limit` buffered: bounded rounds.
            while true {
                switch parse(received[...]) {
                case .parsed(let value, let consumed):
                    received.removeFirst(consumed)
                    return .parsed(value)
                case .malformed(let reply):
                    return .malformed(reply)
                case .needMore:
                    // A parser asks for more only below its message's maximum; the guard keeps that a promise.
                    guard received.count < limit else { return .malformed(.generalFailure) }
                }
                guard client.waitReadable(wake: wake, timeoutMilliseconds: idleTimeout.pollMilliseconds) == .readable
                else { return .ended }
                let room = limit - received.count
                let result = buffer.withUnsafeMutableBytes {
                    client.receive(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<room]))
                }
                guard case .received(let count) = result else { return .ended }
                received += buffer[..<count]
            }
        }

        /// The reply for a target that could not be connected.
        private static func reply(for failure: ConnectFailure) -> SOCKS5Handshake.Reply {
            switch failure.code {
            case ECONNREFUSED: .connectionRefused
            case ENETUNREACH: .networkUnreachable
            case EHOSTUNREACH: .hostUnreachable
            default: .generalFailure
            }
        }

        // MARK: I/O

        /// The first byte the client sent, left unread; `nil` when the client closed, went quiet for the idle
        /// timeout, or the proxy stopped.
        private func peekFirstByte(_ client: Socket) -> UInt8? {
            guard client.waitReadable(wake: wake, timeoutMilliseconds: idleTimeout.pollMilliseconds) == .readable
            else { return nil }
            var byte: UInt8 = 0
            // Readable, so recv() returns at once; EINTR is the only reason to try again.
            for _ in 0..<16 {
                let count = recv(client.fd, &byte, 1, Int32(MSG_PEEK))
                if count == 1 { return byte }
                if count < 0 && errno == EINTR { continue }
                return nil
            }
            return nil
        }

        /// Reads up to the end of the request head: the head (without its blank line) and whatever followed it;
        /// `nil` (after answering 431 when the head is too long) when the client closed, went quiet for the idle
        /// timeout, or the proxy stopped.
        private func readHead(_ client: Socket) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let end: [UInt8] = Array("\r\n\r\n".utf8)
            // Each round reads at least a byte or returns; the size limit bounds the rounds.
            while received.count <= Self.maximumHeadBytes {
                guard client.waitReadable(wake: wake, timeoutMilliseconds: idleTimeout.pollMilliseconds) == .readable
                else { return nil }
                let result = buffer.withUnsafeMutableBytes { client.receive(into: $0) }
                guard case .received(let count) = result else { return nil }
                let searchFrom = max(0, received.count - 3)
                received += buffer[..<count]
                if let range = received[searchFrom...].firstRange(of: end) {
                    // The last read may have brought the end of a head that is too long all the same.
                    guard range.upperBound <= Self.maximumHeadBytes else { break }
                    return (received[..<range.lowerBound], received[range.upperBound...])
                }
            }
            refuse(client, status: 431, reason: "Request Header Fields Too Large", message: "head over 64 KiB")
            return nil
        }

        /// Answers with `status` and closes: the answer first, then a bounded drain of what the client still
        /// sends, because closing with unread bytes resets the connection and can destroy the answer in flight.
        private func refuse(
            _ client: Socket, status: Int, reason: String, message: String, extraHeaders: String = ""
        ) {
            let body = message + "\n"
            let text =
                "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                + extraHeaders + "Connection: close\r\n\r\n" + body
            finish(client, sending: Array(text.utf8))
        }

        /// Sends `answer` and ends the connection: the answer first, then a bounded drain of what the client still
        /// sends, because closing with unread bytes resets the connection and can destroy the answer in flight.
        private func finish(_ client: Socket, sending answer: [UInt8]) {
            guard client.sendAll(answer[...]) else { return }
            client.shutdownWrite()
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let wait = min(idleTimeout.pollMilliseconds, 1000)
            // At most 64 reads of up to a second each: the client normally closes at once.
            for _ in 0..<64 {
                guard client.waitReadable(wake: wake, timeoutMilliseconds: wait) == .readable else { return }
                guard case .received = buffer.withUnsafeMutableBytes({ client.receive(into: $0) }) else { return }
            }
        }

        /// Copies bytes both ways until the target closes (or fails), both sides have closed, either side is
        /// quiet for the idle timeout, or the proxy stops.
        ///
        /// When the client closes its side first, the target is told so (`shutdown(SHUT_WR)`) and its answer
        /// still relayed: a client may half-close after its request.
        private func relay(_ client: Socket, _ upstream: Socket) {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var clientOpen = true
            let timeout = idleTimeout.pollMilliseconds
            // Every round moves bytes, notes a close, or returns; the idle timeout ends a quiet connection.
            while true {
                var fds = [
                    pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: upstream.fd, events: Int16(POLLIN), revents: 0),
                    // A negative descriptor is skipped: a closed side would report POLLHUP on every round.
                    pollfd(fd: clientOpen ? client.fd : -1, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&fds, nfds_t(fds.count), timeout)
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0, fds[0].revents == 0 else { return }
                if fds[1].revents != 0 {
                    let result = buffer.withUnsafeMutableBytes { upstream.receive(into: $0) }
                    guard case .received(let count) = result, client.sendAll(buffer[..<count]) else { return }
                }
                if fds[2].revents != 0 {
                    switch buffer.withUnsafeMutableBytes({ client.receive(into: $0) }) {
                    case .received(let count):
                        guard upstream.sendAll(buffer[..<count]) else { return }
                    case .endOfStream:
                        clientOpen = false
                        upstream.shutdownWrite()
                    case .failed:
                        return
                    }
                }
            }
        }
    }
}
