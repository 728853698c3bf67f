import Foundation
import LoopbackServer
import NetCore
import NetKitLock

extension TransportConformance {
    /// The engine over the transport tells the same events as over any other: a success, a retried 503, a body
    /// dropped mid-way and an idle timeout each give exactly the sequence the engine makes over the stub transport.
    /// What a transport must report for that is what the seam already asks: the response head when it arrives (its
    /// arrival time), the body to its end or a failure in NetKit's words.
    static let eventSequences = TransportConformanceCheck("request events: the same sequence on every transport") {
        context in
        let served = Lock([String: Int]())
        let server = try context.server { request in
            let count = served.withLock { served -> Int in
                served[request.path, default: 0] += 1
                return served[request.path, default: 0]
            }
            switch request.path {
            case "/busy" where count == 1: return LoopbackResponse(status: 503, body: Data("busy".utf8))
            case "/dropped":
                return LoopbackResponse(body: Data(repeating: 7, count: 10_000), faults: [.dropAfterBodyBytes(100)])
            case "/slow": return LoopbackResponse(body: Data("late".utf8), faults: [.delayBeforeHead(.seconds(10))])
            default: return .text("hello")
            }
        }
        defer { server.stop() }
        let recorder = EventRecorder()
        var configuration = RequestExecutor.Configuration(plugins: [recorder])
        configuration.builder.idleTimeout = .milliseconds(300)
        let executor = RequestExecutor(transport: context.transport, configuration: configuration)
        let exchange = [
            "attempt_start", "request_start", "request_head_sent", "response_head", "response_body_end", "attempt_end",
        ]
        let cases: [(EventProbe, [String])] = [
            (EventProbe(path: "/ok"), ["call_start"] + exchange + ["call_end"]),
            (
                EventProbe(path: "/busy", retries: 1),
                ["call_start"] + exchange + ["retry_scheduled"] + exchange + ["call_end"]
            ),
            (
                EventProbe(path: "/dropped"),
                [
                    "call_start", "attempt_start", "request_start", "request_head_sent", "response_head",
                    "attempt_failed", "call_failed",
                ]
            ),
            (
                EventProbe(path: "/slow"),
                ["call_start", "attempt_start", "request_start", "attempt_failed", "call_failed"]
            ),
        ]
        for (probe, expected) in cases {
            recorder.removeAll()
            _ = try? await executor.send(probe, baseURL: server.baseURL)
            let violations = RequestEventGrammar.violations(in: recorder.events)
            try context.expect(
                violations.isEmpty,
                "GET \(probe.path): the events break the grammar: \(violations.joined(separator: "; "))")
            let times = recorder.events.map(\.time)
            try context.expect(
                zip(times, times.dropFirst()).allSatisfy { $0 <= $1 },
                "GET \(probe.path): an event was told with a time before the one told ahead of it")
            let names = recorder.requestNumbers.first.map(recorder.kindNames(of:)) ?? []
            try context.expect(
                names == expected,
                "GET \(probe.path): the engine over this transport told \(names), where over the stub transport it "
                    + "tells \(expected)")
        }
    }

    /// The transport tells what it sent (``NetCore/TransportRequest/onSent``): the head once, then, for a request
    /// with a body, the body once with its size, in that order and by the time it hands over the response head; for
    /// a `GET`, a body in memory, a file and a stream of unknown length, each answered once the server has read
    /// the whole body.
    static let sentParts = TransportConformanceCheck("the head and the body told sent") { context in
        let server = try context.server { request in .text("\(request.body.count)") }
        defer { server.stop() }
        let size = 300 * 1024
        let bytes = Data(repeating: UInt8(ascii: "s"), count: size)
        let file: ScratchFile
        do {
            file = try ScratchFile(bytes)
        } catch {
            throw context.failure("could not write the file to upload: \(error)")
        }
        // The file is removed when dropped: not before the last upload has read it.
        defer { withExtendedLifetime(file) {} }
        let bodies: [(String, UploadSource?)] = [
            ("GET", nil),
            ("a body in memory", UploadSource(data: bytes)),
            ("a file", try UploadSource(fileURL: file.url)),
            ("a stream of unknown length", UploadSource(stream: InputStream(data: bytes), length: nil)),
        ]
        for (what, body) in bodies {
            let told = Lock([TransportRequest.SentPart]())
            var request = try context.request(
                server.baseURL.appendingPathComponent("sent"), method: body == nil ? .get : .post, body: body)
            request.onSent = { part in told.withLock { $0.append(part) } }
            let response = try await context.send(request, what)
            let atHead = told.withLock { $0 }
            _ = try await context.collect(response.body, "the answer to \(what)")
            let expected: [TransportRequest.SentPart] = body == nil ? [.head] : [.head, .body(bytes: Int64(size))]
            try context.expect(
                atHead == expected,
                "\(what): the transport told \(atHead) sent by the time it handed over the response head, expected "
                    + "\(expected): the head once, then the body once with its size, no later than the answer")
            let afterwards = told.withLock { $0 }
            try context.expect(
                afterwards == atHead,
                "\(what): the transport told \(afterwards.dropFirst(atHead.count)) after the answer")
        }
    }

    /// A server that drops a kept-alive connection as the next request arrives, without a byte of answer: the engine
    /// sends an idempotent request once more on its own, so the caller sees no error, and never sends a `POST` without
    /// an `Idempotency-Key` twice. For that the transport must fail such an exchange with
    /// ``NetCore/TransportError/Kind/connectionReset`` instead of a head (or resend it itself, as libcurl does for an
    /// idempotent request).
    static let unansweredClose = TransportConformanceCheck("a kept-alive connection closed unanswered") { context in
        // Every connection answers its first request and drops its second unanswered.
        let perConnection = Lock([Int: Int]())
        let server = try context.server { request in
            let count = perConnection.withLock { counts -> Int in
                counts[request.connectionNumber, default: 0] += 1
                return counts[request.connectionNumber, default: 0]
            }
            return count == 2 ? LoopbackResponse(faults: [.closeWithoutResponse]) : .text("ok")
        }
        defer { server.stop() }
        let executor = RequestExecutor(transport: context.transport)
        for index in 0..<20 {
            do {
                _ = try await executor.send(EventProbe(path: "/get/\(index)"), baseURL: server.baseURL)
            } catch {
                throw context.failure(
                    "GET /get/\(index), sent on a kept-alive connection the server closed without answering, failed: "
                        + "\(String(reflecting: error)); the engine sends an idempotent request once more when the "
                        + "transport fails it with connectionReset instead of a head")
            }
        }
        for index in 0..<20 {
            let post = EventProbe(
                path: "/post/\(index)", requestMethod: .post,
                body: RequestBody(data: Data("order \(index)".utf8), contentType: "text/plain"))
            _ = try? await executor.send(post, baseURL: server.baseURL)
        }
        let posts = server.requests.filter { $0.method == "POST" }.map(\.path)
        let twice = Dictionary(grouping: posts, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        try context.expect(
            twice.isEmpty,
            "a POST without an Idempotency-Key reached the server twice: \(twice.joined(separator: ", "))")
    }

    /// The stress check of the event stream: `requests` requests, 32 at a time, through the engine over the
    /// transport against a server that injects faults — a connection dropped unanswered, a head that comes after
    /// the request's timeout, a 401, a 503 then a 200, a body dropped mid-way — and callers that cancel some
    /// requests (before they start, or while the server holds their answer back). Every request must tell `call_start` once, end once, and follow the grammar
    /// (``RequestEventGrammar``).
    ///
    /// Not in ``checks`` (it takes seconds): run it alone, `try await TransportConformance.eventsUnderFaults(requests:
    /// 10_000).run(against: transport)`.
    public static func eventsUnderFaults(requests: Int = 10_000) -> TransportConformanceCheck {
        TransportConformanceCheck("request events under faults") { context in
            let served = Lock([String: Int]())
            let server = try context.server(limits: LoopbackLimits()) { request in
                let count = served.withLock { served -> Int in
                    served[request.path, default: 0] += 1
                    return served[request.path, default: 0]
                }
                switch request.path.split(separator: "/").first ?? "" {
                case "reset" where count == 1: return LoopbackResponse(faults: [.closeWithoutResponse])
                case "slow", "held": return LoopbackResponse(faults: [.delayBeforeHead(.seconds(5))])
                case "unauthorized": return LoopbackResponse(status: 401)
                case "busy" where count == 1: return LoopbackResponse(status: 503)
                case "dropped":
                    return LoopbackResponse(body: Data(repeating: 1, count: 4096), faults: [.dropAfterBodyBytes(10)])
                default: return .text("ok")
                }
            }
            defer { server.stop() }
            let recorder = EventRecorder()
            let executor = RequestExecutor(
                transport: context.transport, configuration: RequestExecutor.Configuration(plugins: [recorder]))
            let kinds = ["ok", "reset", "slow", "unauthorized", "busy", "dropped", "ok", "held"]
            await withTaskGroup(of: Void.self) { group in
                var next = 0
                func start(_ index: Int) {
                    let kind = kinds[index % kinds.count]
                    let probe = EventProbe(
                        path: "/\(kind)/\(index)", retries: kind == "busy" ? 1 : 0,
                        timeout: kind == "slow" ? .milliseconds(100) : .seconds(30))
                    guard kind == "held" else {
                        group.addTask { _ = try? await executor.send(probe, baseURL: server.baseURL) }
                        return
                    }
                    // Cancelled by its caller, before it starts or while the server holds its answer back: never as
                    // the answer completes, which FoundationNetworking's own cancellation cannot take (Docs/Linux.md).
                    group.addTask {
                        let call = Task { _ = try? await executor.send(probe, baseURL: server.baseURL) }
                        if index % 2 == 0 { await Task.yield() }
                        call.cancel()
                        await call.value
                    }
                }
                while next < min(32, requests) {
                    start(next)
                    next += 1
                }
                while await group.next() != nil, next < requests {
                    start(next)
                    next += 1
                }
            }
            let events = recorder.events
            let violations = RequestEventGrammar.violations(in: events)
            try context.expect(
                violations.isEmpty,
                "\(violations.count) requests broke the grammar, the first: \(violations.prefix(3).joined(separator: "; "))"
            )
            let starts = events.filter { if case .callStart = $0.kind { true } else { false } }.count
            let ends = events.filter { event in
                switch event.kind {
                case .callEnd, .callFailed: true
                default: false
                }
            }.count
            try context.expect(
                starts == requests && ends == requests,
                "\(requests) requests told \(starts) call_start and \(ends) call ends: each must tell one of each")
        }
    }
}
