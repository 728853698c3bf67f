import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKit
import Synchronization

// MARK: - cookie

private struct Echo: Decodable, Sendable {
    let cookie: String
}

private struct EchoCookie: NetworkRequest {
    typealias Response = Echo
    var path: String { "/echo" }
    var method: HTTPMethod { .get }
    var headers: [String: String]? { ["Cookie": "mine=1"] }
}

func cookieFact() async throws {
    let server = TinyServer { request, connection in
        if request.path == "/set" {
            return connection.write("HTTP/1.1 200 OK\r\nSet-Cookie: stored=1; Path=/\r\nContent-Length: 0\r\n\r\n")
        }
        let body = #"{"cookie":"\#(request.header("Cookie") ?? "(none)")"}"#
        return connection.write(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }
    // The default configuration keeps cookies (HTTPCookieStorage.shared): the first response stores one.
    let session = URLSession(configuration: .default)
    _ = try await session.data(from: server.url("/set"))
    for handles in [true, false] {
        var request = URLRequest(url: server.url("/echo"))
        request.setValue("mine=1", forHTTPHeaderField: "Cookie")
        request.httpShouldHandleCookies = handles
        let (data, _) = try await session.data(for: request)
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        print(
            "URLSession, request says Cookie: mine=1, httpShouldHandleCookies \(handles): server got Cookie: \(echo.cookie)"
        )
    }
    // NetKit's default transport is a URLSession of the same default configuration (the same cookie storage).
    let manager = NetworkManager(baseURL: server.url(""))
    let echo = try await manager.send(EchoCookie(), accessToken: nil)
    print("NetKit (URLSessionTransport), request says Cookie: mine=1: server got Cookie: \(echo.cookie)")
}

// MARK: - urlcache

private struct Greeting: Decodable, Sendable {
    let hello: String
}

private struct GetCached: NetworkRequest {
    typealias Response = Greeting
    var path: String { "/cached" }
    var method: HTTPMethod { .get }
}

func urlCacheFact() async throws {
    let hits = Atomic<Int>(0)
    let server = TinyServer { _, connection in
        hits.add(1, ordering: .relaxed)
        let body = #"{"hello":"world"}"#
        return connection.write(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: public, max-age=3600\r\n"
                + "Last-Modified: Mon, 02 Nov 2026 10:00:00 GMT\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
    }
    let cache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = cache
    configuration.requestCachePolicy = .useProtocolCachePolicy
    let session = URLSession(configuration: configuration)
    let request = URLRequest(url: server.url("/cached"))
    for _ in 1...2 { _ = try await session.data(for: request) }
    let stored = cache.cachedResponse(for: request) != nil
    print("URLSession with a 4 MiB URLCache, the same GET (Cache-Control: max-age=3600) twice:")
    print(
        "  requests that reached the server: \(hits.load(ordering: .relaxed)) of 2; response in the cache: \(stored); cache memory used: \(cache.currentMemoryUsage) bytes"
    )

    hits.store(0, ordering: .relaxed)
    var netKit = NetworkConfiguration(baseURL: server.url(""))
    netKit.responseCache = ResponseCache(maximumBytes: 4 << 20)
    let manager = NetworkManager(configuration: netKit)
    for _ in 1...2 { _ = try await manager.send(GetCached(), accessToken: nil) }
    print(
        "NetKit with a ResponseCache, the same GET twice: requests that reached the server: \(hits.load(ordering: .relaxed)) of 2"
    )
}

// MARK: - headers

func headersFact() async throws {
    let server = TinyServer { request, connection in
        let head =
            switch request.path {
            case "/obs-text": "HTTP/1.1 200 OK\r\nX-Place: caf\u{E9}\r\n"
            case "/no-reason": "HTTP/1.1 200\r\n"
            default: "HTTP/1.1 200 OK\r\nX-Place: cafe\r\n"
            }
        // Latin-1, so that é is the single byte 0xE9 (obs-text, RFC 9110 §5.5), as an old server sends it.
        var bytes = Array(head.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        bytes += Array("Content-Length: 2\r\n\r\nok".utf8)
        return connection.write(bytes)
    }
    let session = URLSession(configuration: .ephemeral)
    for (path, what) in [
        ("/plain", "plain ASCII headers"), ("/obs-text", "X-Place: caf\\xE9 (one Latin-1 byte)"),
        ("/no-reason", "status line \"HTTP/1.1 200\" (no reason phrase)"),
    ] {
        do {
            let (data, response) = try await session.data(from: server.url(path))
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            print("URLSession, \(what): \(status), body \"\(String(decoding: data, as: UTF8.self))\"")
        } catch {
            print("URLSession, \(what): failed, \(describe(error))")
        }
    }
}

// MARK: - shared-queue

/// Runs each delegate callback at once on the thread that adds it (libcurl's callback, on URLSession's work
/// queue), as NetKit's URLSessionTransport does on Linux: the only way a delegate can hold the transfer back.
private final class InlineQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) { block() }
    override func addOperation(_ operation: Operation) { operation.start() }
}

/// Blocks the first body callback for `seconds`, as a delegate would that waits for its consumer.
private final class BlockingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let seconds: Double
    let started = Mutex<Double?>(nil)
    let done = DispatchSemaphore(value: 0)

    init(seconds: Double) { self.seconds = seconds }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let first = started.withLock { value -> Bool in
            guard value == nil else { return false }
            value = now()
            return true
        }
        if first { Thread.sleep(forTimeInterval: seconds) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done.signal()
    }
}

func sharedQueueFact() async throws {
    let server = TinyServer { request, connection in
        if request.path == "/big" {
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(1 << 20)\r\n\r\n")
            return connection.write([UInt8](repeating: 120, count: 1 << 20))
        }
        return connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsmall")
    }
    let other = URLSession(configuration: .ephemeral)
    _ = try await other.data(from: server.url("/small"))  // connected and warm
    var start = now()
    _ = try await other.data(from: server.url("/small"))
    print("a 5-byte GET on its own session, nothing else running: \(format((now() - start) * 1000, 1)) ms")

    for (label, queue) in [
        ("inline delegate queue", InlineQueue() as OperationQueue?), ("default delegate queue", nil),
    ] {
        let delegate = BlockingDelegate(seconds: 2)
        let blocked = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        blocked.dataTask(with: server.url("/big")).resume()
        while delegate.started.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        start = now()
        _ = try await other.data(from: server.url("/small"))
        let took = now() - start
        print("\(label): the same GET while another session's delegate blocks 2 s: \(format(took * 1000, 1)) ms")
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                delegate.done.wait()
                continuation.resume()
            }
        }
        blocked.finishTasksAndInvalidate()
    }
}

// MARK: - backpressure

/// Keeps every chunk until a slow consumer takes it, and records the most it held.
private final class PilingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let buffered = Mutex<(chunks: [Data], bytes: Int, peak: Int)>(([], 0, 0))
    let done = DispatchSemaphore(value: 0)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        buffered.withLock { state in
            state.chunks.append(data)
            state.bytes += data.count
            state.peak = max(state.peak, state.bytes)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done.signal()
    }
}

func backpressureFact() async throws {
    let total = 256 << 20
    let written = Mutex<(bytes: Int, finished: Double?)>((0, nil))
    let server = TinyServer { _, connection in
        connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n")
        let chunk = [UInt8](repeating: 97, count: 64 << 10)
        for _ in 0..<(total / chunk.count) {
            guard connection.write(chunk) else { return false }
            written.withLock { $0.bytes += chunk.count }
        }
        written.withLock { $0.finished = now() }
        return false
    }
    let idleKiB = ProcessStats.statusKiB("VmRSS")
    let delegate = PilingDelegate()
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    let start = now()
    session.dataTask(with: server.url("/flood")).resume()
    // The consumer reads 32 MiB/s (a JSON decoder per NDJSON line runs at about this speed) for at most 3 s.
    var consumed = 0
    let rate = 32 << 20
    while now() - start < 3 {
        try await Task.sleep(for: .milliseconds(50))
        var budget = rate / 20
        delegate.buffered.withLock { state in
            while budget > 0, !state.chunks.isEmpty {
                let chunk = state.chunks.removeFirst()
                budget -= chunk.count
                consumed += chunk.count
                state.bytes -= chunk.count
            }
        }
        if written.withLock({ $0.finished }) != nil { break }
    }
    let (serverBytes, finished) = written.withLock { ($0.bytes, $0.finished) }
    let peak = delegate.buffered.withLock { $0.peak }
    let grownMiB = Double(ProcessStats.statusKiB("VmHWM") - idleKiB) / 1024
    session.invalidateAndCancel()
    delegate.done.wait()
    let mib = { (bytes: Int) in format(Double(bytes) / 1_048_576, 0) + " MiB" }
    if let finished {
        print(
            "the server wrote all \(mib(serverBytes)) in \(format(finished - start)) s, while the consumer (32 MiB/s) had read \(mib(consumed))"
        )
    } else {
        print("the server wrote \(mib(serverBytes)) in 3 s, while the consumer (32 MiB/s) read \(mib(consumed))")
    }
    print(
        "most held unread by the client: \(mib(peak)); peak resident memory above the start: \(format(grownMiB, 0)) MiB"
    )
}

// MARK: - trickle

func trickleFact() async throws {
    let server = TinyServer { request, connection in
        if request.path == "/quick-close" {
            connection.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
            return false
        }
        if request.path == "/quick" {
            return connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        if request.path == "/late" {
            // Silent for 3 s, then the whole answer: the same wait without a trickle.
            Thread.sleep(forTimeInterval: 3)
            return connection.write("HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n" + String(repeating: "x", count: 15))
        }
        connection.write("HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n")
        for _ in 0..<15 {
            Thread.sleep(forTimeInterval: 0.2)
            guard connection.write("x") else { return false }
        }
        return true
    }
    let shared = URLSession(configuration: .ephemeral)
    let cases: [(path: String, what: String, session: URLSession?)] = [
        ("/late", "3 s of silence, then the whole response (new session)", nil),
        ("/trickle", "head at once, then a body byte every 200 ms for 3 s (new session)", nil),
        ("/quick", "a quick GET, to open a connection of a session", shared),
        ("/late", "3 s of silence, then the whole response (that session, connection kept alive)", shared),
        ("/trickle", "the trickle (that session, connection kept alive)", shared),
        ("/quick-close", "a quick GET whose server closes the connection", shared),
        ("/trickle", "the trickle (that session, a new connection)", shared),
    ]
    for (path, what, reused) in cases {
        let session = reused ?? URLSession(configuration: .ephemeral)
        let before = ProcessStats.cpuSeconds()
        let start = now()
        _ = try await session.data(from: server.url(path))
        let after = ProcessStats.cpuSeconds()
        let wall = now() - start
        let user = after.user - before.user
        let system = after.system - before.system
        let share = wall >= 1 ? " = \(format((user + system) / wall * 100, 0)) % of a core" : ""
        print("\(what): \(format(wall, 1)) s, CPU user \(format(user)) s + system \(format(system)) s\(share)")
    }
}

// MARK: - timeout

func timeoutFact() async throws {
    let server = TinyServer { _, _ in
        Thread.sleep(forTimeInterval: 5)  // never answers in time
        return false
    }
    for interval in [0.5, 1.5] {
        var request = URLRequest(url: server.url("/silent"))
        request.timeoutInterval = interval
        let start = now()
        let outcome: String
        do {
            _ = try await URLSession(configuration: .ephemeral).data(for: request)
            outcome = "answered"
        } catch { outcome = describe(error) }
        print("timeoutInterval \(interval) s: ended after \(format(now() - start)) s, \(outcome)")
    }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 3
    configuration.timeoutIntervalForResource = 1
    let start = now()
    let outcome: String
    do {
        _ = try await URLSession(configuration: configuration).data(from: server.url("/silent"))
        outcome = "answered"
    } catch { outcome = describe(error) }
    print(
        "timeoutIntervalForResource 1 s, timeoutIntervalForRequest 3 s: ended after \(format(now() - start)) s, \(outcome)"
    )
}

// MARK: - memory

func memoryFact() async throws {
    let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 12_000
    let server = TinyServer { _, connection in
        connection.write(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"id\":\"42\"}")
    }
    let session = URLSession(configuration: .ephemeral)
    let url = server.url("/small")
    for _ in 0..<2_000 { _ = try await session.data(from: url) }  // warm-up: connections, caches, arenas
    let startKiB = ProcessStats.statusKiB("VmRSS")
    let start = now()
    var line = "resident MiB after the warm-up (2,000) \(format(Double(startKiB) / 1024, 1))"
    let step = max(count / 4, 1)
    for done in stride(from: step, through: count, by: step) {
        for _ in 0..<step { _ = try await session.data(from: url) }
        line += ", +\(done): \(format(Double(ProcessStats.statusKiB("VmRSS")) / 1024, 1))"
    }
    let grown = ProcessStats.statusKiB("VmRSS") - startKiB
    print(line)
    print(
        "\(count) sequential GETs in \(format(now() - start, 1)) s: \(grown * 1024 / count) bytes kept per request (\(format(Double(grown) / 1024, 1)) MiB)"
    )
}

// MARK: - suspend

/// Counts the body bytes delivered, and suspends the task for half a second at the first chunk.
private final class SuspendingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let received = Atomic<Int>(0)
    let suspended = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.add(data.count, ordering: .relaxed)
        if !suspended.exchange(true, ordering: .relaxed) {
            // From another thread: suspend() and resume() wait on the queue this callback may run on.
            DispatchQueue.global().async {
                dataTask.suspend()
                Thread.sleep(forTimeInterval: 0.5)
                dataTask.resume()
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done.signal()
    }
}

func suspendFact() async throws {
    let total = 32 << 20
    let requests = Atomic<Int>(0)
    let server = TinyServer { _, connection in
        requests.add(1, ordering: .relaxed)
        connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n")
        // About 32 MiB/s, so that the suspension lands in the middle of the body.
        let chunk = [UInt8](repeating: 98, count: 64 << 10)
        for _ in 0..<(total / chunk.count) {
            guard connection.write(chunk) else { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }
    let delegate = SuspendingDelegate()
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    session.dataTask(with: server.url("/body")).resume()
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            delegate.done.wait()
            continuation.resume()
        }
    }
    let received = delegate.received.load(ordering: .relaxed)
    print("a \(total >> 20) MiB body, the task suspended at its first chunk and resumed 0.5 s later:")
    print(
        "  the delegate received \(received) bytes (\(received - total) more than the body); the server was asked \(requests.load(ordering: .relaxed)) time(s)"
    )
    session.finishTasksAndInvalidate()
}

// MARK: - metrics

/// Notes whether URLSession ever hands over a task's metrics.
private final class MetricsDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let metrics = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        self.metrics.add(1, ordering: .relaxed)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done.signal()
    }
}

func metricsFact() async throws {
    let server = TinyServer { _, connection in
        connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    }
    let delegate = MetricsDelegate()
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    for _ in 1...3 {
        session.dataTask(with: server.url("/")).resume()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                delegate.done.wait()
                continuation.resume()
            }
        }
    }
    try await Task.sleep(for: .milliseconds(200))  // a late delivery would still count
    print(
        "3 completed tasks: didFinishCollecting(metrics:) called \(delegate.metrics.load(ordering: .relaxed)) time(s)")
    session.finishTasksAndInvalidate()
}
