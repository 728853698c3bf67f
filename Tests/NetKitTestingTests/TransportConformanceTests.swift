import Foundation
import NetCore
import NetKitTesting
import NetTransport
import Testing

/// The suite itself: a transport that breaks a promise fails the check for that promise, with a message that
/// says what was seen.
@Suite("Transport conformance suite")
struct TransportConformanceTests {
    /// Reads the whole body before returning the head: no streaming.
    struct BufferingTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            let data = try await response.body.collect(upTo: 64 << 20)
            return TransportResponse(
                head: response.head, body: ResponseBody(data: data), url: response.url,
                headReceivedAt: response.headReceivedAt)
        }
    }

    /// Hands the head over at once, but the body only once all of it has arrived, in one chunk.
    struct GatheringBodyTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            let body = response.body
            let gathered = AsyncThrowingStream<Data, any Error> { continuation in
                let task = Task {
                    do {
                        continuation.yield(try await body.collect(upTo: 64 << 20))
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            return TransportResponse(
                head: response.head, body: ResponseBody(gathered), url: response.url,
                headReceivedAt: response.headReceivedAt)
        }
    }

    /// Reads a request body into memory before sending any of it, keeping its framing (a stream of unknown length
    /// still goes out chunked).
    struct GatheringUploadTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            if let body = request.body {
                // On a thread of its own, as a transport that reads a body must: the producer may block (this
                // check's does, for seconds), and the cooperative pool has only a thread per core.
                let data = try await withCheckedThrowingContinuation { continuation in
                    Thread { continuation.resume(with: Result { try Self.gather(body) }) }.start()
                }
                request.body = UploadSource(stream: InputStream(data: data), length: body.length)
            }
            return try await base.send(request)
        }

        /// All of `body`, read to its end.
        static func gather(_ body: UploadSource) throws -> Data {
            let reader = try body.makeReader()
            defer { reader.close() }
            var data = Data()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
            defer { buffer.deallocate() }
            // Each round reads at least one byte or ends.
            while case let count = try reader.read(into: buffer), count > 0 {
                data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            return data
        }
    }

    /// Ends every body cleanly, whatever happened to the connection.
    struct ForgivingTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            let body = response.body
            let forgiving = AsyncThrowingStream<Data, any Error> { continuation in
                let task = Task {
                    do { for try await chunk in body { continuation.yield(chunk) } } catch {}
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            return TransportResponse(
                head: response.head, body: ResponseBody(forgiving), url: response.url,
                headReceivedAt: response.headReceivedAt)
        }
    }

    /// Never answers, and ignores cancellation.
    struct HangingTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            throw TransportError(.other)
        }
    }

    /// Sends only the last value of a repeated field, as a transport built on a `[String: String]` would.
    struct LastValueWinsTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            var fields = HTTPHeaderFields()
            for field in request.head.headerFields { fields.set(field) }
            request.head.headerFields = fields
            return try await base.send(request)
        }
    }

    /// Hands repeated response fields over joined into one, `Set-Cookie` too.
    struct JoiningTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var response = try await base.send(request)
            var fields = HTTPHeaderFields()
            for field in response.head.headerFields where !fields.contains(field.name) {
                try fields.setValue(
                    response.head.headerFields.values(for: field.name).joined(separator: ", "), for: field.name)
            }
            response.head.headerFields = fields
            return response
        }
    }

    /// Puts a header of its own on the wire, as a transport that wrote values unchecked could be made to.
    struct SmugglingTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            try request.addHeader("X-Smuggled", "yes")
            return try await base.send(request)
        }
    }

    /// Reports no progress at all.
    struct SilentProgressTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            request.progress = nil
            return try await base.send(request)
        }
    }

    /// Completes the progress itself once the head is in, which is the engine's word.
    struct CompletingTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await base.send(request)
            request.progress?.fractionCompleted = 1
            return response
        }
    }

    /// Fails in words of its own that no retry rule reads.
    struct OpaqueFailureTransport: HTTPTransport {
        struct Failure: Error {}
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            do {
                return try await base.send(request)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw Failure()
            }
        }
    }

    /// Leaves the request's idle timeout aside, so URLSession's own (60 s) applies.
    struct NoIdleTimeoutTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var request = request
            request.idleTimeout = nil
            return try await base.send(request)
        }
    }

    /// Stamps the head time when it hands a response out, which for a body collected whole is the end of the
    /// transfer: what `send` over URLSession reported before issue 14.
    struct LateHeadTimeTransport: HTTPTransport {
        let base = URLSessionTransport()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            var response = try await base.send(request)
            response.headReceivedAt = .now
            return response
        }
    }

    func check(_ name: String) throws -> TransportConformanceCheck {
        try #require(TransportConformance.checks.first { $0.name == name })
    }

    /// Runs `name` against `transport`, which must fail it; the failure, for a closer look.
    func failure(
        of name: String,
        against transport: any HTTPTransport,
        options: TransportConformanceOptions = .init(timeLimit: .seconds(25))
    ) async throws -> TransportConformanceFailure? {
        let check = try check(name)
        let failure = await #expect(
            throws: TransportConformanceFailure.self, "\(name) passed against a transport that breaks it"
        ) {
            try await check.run(against: transport, options: options)
        }
        #expect(failure?.check == name)
        return failure
    }

    @Test("the checks have distinct names, and the issue's list is covered")
    func names() {
        let names = TransportConformance.checks.map(\.name)
        #expect(Set(names).count == names.count)
        for name in [
            "methods", "request headers", "response headers", "request bodies", "status codes",
            "incremental streaming", "a body dropped mid-way", "a body shorter than its Content-Length",
            "cancellation before the head", "cancellation during the body", "large bodies", "progress", "redirects",
            "repeated request fields", "repeated response fields", "no CR, LF or NUL on the wire",
            "progress while uploading", "refused connection", "idle timeout", "head time",
            "a response body handed over while it arrives", "a request body sent while it is produced",
        ] {
            #expect(names.contains(name), "missing check \(name)")
        }
    }

    @Test("a transport that buffers the body fails the streaming checks")
    func buffering() async throws {
        for name in ["head before body", "incremental streaming"] {
            _ = try await failure(of: name, against: BufferingTransport())
        }
    }

    @Test("a transport that gathers a response body into memory fails the check that it hands it over as it arrives")
    func gatheringResponse() async throws {
        let name = "a response body handed over while it arrives"
        let options = TransportConformanceOptions(timeLimit: .seconds(20))
        let beforeHead = try await failure(of: name, against: BufferingTransport(), options: options)
        #expect(
            beforeHead?.message
                == "the transport gathered the response body before handing over its head: a streamed body must "
                + "reach the caller while it is still arriving (the server held the rest of the body until the caller "
                + "had the head and the first 4096 bytes, and gave up waiting)")
        let afterHead = try await failure(of: name, against: GatheringBodyTransport(), options: options)
        #expect(
            afterHead?.message
                == "the transport gathered the response body before handing over its first bytes: a streamed body "
                + "must reach the caller while it is still arriving (the server held the rest of the body until the "
                + "caller had the first 4096 bytes, and gave up waiting)")
    }

    @Test("a transport that gathers a streamed request body before sending it fails the check that it sends it as made")
    func gatheringUpload() async throws {
        // The stream holds its last part for half the limit; the other half is left for the gathered 1 MiB to go
        // out over URLSession, whose one work queue per process the 10,000-request checks share. With 20 s in all,
        // the whole suite's load was seen to leave too little of it.
        let failure = try await failure(
            of: "a request body sent while it is produced", against: GatheringUploadTransport(),
            options: TransportConformanceOptions(timeLimit: .seconds(60)))
        #expect(
            failure?.message
                == "the transport gathered the streamed request body before sending any of it: a streamed upload "
                + "must reach the server while it is still being produced (the stream held its last part back until "
                + "the server had received 524288 of its first 1048576 bytes, and gave up waiting)")
    }

    @Test("the URLSession transport passes the buffering checks")
    func unbufferedTransportsPass() async throws {
        // The server waits half the time limit for the caller to have the first bytes. URLSession's one work queue
        // per process, shared with every other suite's transfers, was seen to take longer than the default 15 s.
        let options = TransportConformanceOptions(timeLimit: .seconds(120))
        for name in ["a response body handed over while it arrives", "a request body sent while it is produced"] {
            try await check(name).run(against: URLSessionTransport(), options: options)
        }
    }

    @Test("a transport that ends broken bodies cleanly fails the broken-body checks, naming what it saw")
    func forgiving() async throws {
        for name in ["a body dropped mid-way", "a body shorter than its Content-Length", "idle timeout"] {
            // Longer than the default 25 s: under the whole suite's load the check was seen to hit the time limit
            // before it could see the body end cleanly.
            let failure = try await failure(
                of: name, against: ForgivingTransport(), options: TransportConformanceOptions(timeLimit: .seconds(60)))
            #expect(failure?.message.contains("ended cleanly") == true, "\(failure?.description ?? "")")
        }
    }

    @Test("a transport that keeps one value of a repeated request field fails that check")
    func lastValueWins() async throws {
        let failure = try await failure(of: "repeated request fields", against: LastValueWinsTransport())
        #expect(failure?.message.contains("c d") == true, "\(failure?.description ?? "")")
        // The other checks do not depend on it.
        try await check("request headers").run(against: LastValueWinsTransport())
    }

    @Test("a transport that joins repeated response fields fails that check, Set-Cookie first")
    func joining() async throws {
        let failure = try await failure(of: "repeated response fields", against: JoiningTransport())
        #expect(failure?.message.contains("Set-Cookie") == true, "\(failure?.description ?? "")")
    }

    @Test("a header that reaches the server although no API could set it fails the wire check")
    func smuggling() async throws {
        let failure = try await failure(of: "no CR, LF or NUL on the wire", against: SmugglingTransport())
        #expect(failure?.message.contains("X-Smuggled") == true, "\(failure?.description ?? "")")
    }

    @Test("a transport that reports no progress fails both progress checks")
    func silentProgress() async throws {
        let finished = try await failure(of: "progress", against: SilentProgressTransport())
        #expect(finished?.message.contains("reported sent") == true, "\(finished?.description ?? "")")
        let running = try await failure(of: "progress while uploading", against: SilentProgressTransport())
        #expect(running?.message.contains("no upload progress") == true, "\(running?.description ?? "")")
    }

    @Test("a transport that completes the progress itself fails the progress check")
    func completing() async throws {
        let failure = try await failure(of: "progress", against: CompletingTransport())
        #expect(failure?.message.contains("only the engine") == true, "\(failure?.description ?? "")")
    }

    @Test("failures without a TransportError kind fail the failure checks, unless the options waive the kinds")
    func opaqueFailures() async throws {
        for name in ["refused connection", "idle timeout"] {
            let failure = try await failure(of: name, against: OpaqueFailureTransport())
            #expect(failure?.message.contains("not a TransportError") == true, "\(failure?.description ?? "")")
        }
        // Bodies still fail with the URLSession transport's own errors: only send's are opaque here.
        try await check("refused connection").run(
            against: OpaqueFailureTransport(), options: .init(requiresTransportErrorKinds: false))
    }

    @Test("a transport that ignores the request's idle timeout fails the idle-timeout check")
    func noIdleTimeout() async throws {
        let failure = try await failure(
            of: "idle timeout", against: NoIdleTimeoutTransport(), options: .init(timeLimit: .seconds(5)))
        #expect(failure?.message.contains("did not finish") == true, "\(failure?.description ?? "")")
    }

    @Test("a transport that stamps the head time late fails the head-time check")
    func lateHeadTime() async throws {
        // Its two roads each wait on the machine: under the full trait suite on 2 busy cores the check once took more
        // than 25 s and ended with the time limit instead of its verdict. It takes milliseconds when the cores are free.
        let failure = try await failure(
            of: "head time", against: LateHeadTimeTransport(), options: .init(timeLimit: .seconds(120)))
        #expect(failure?.message.contains("head time") == true, "\(failure?.description ?? "")")
    }

    // A hang of the check would hang the test: the suite-wide time limit turns that into a failure. The check's
    // own limit is not measured against a wall clock here: how long the failure takes to reach the test after
    // the limit depends on how many other tests wait for the machine's cores (it took 19 s in a loaded run).
    @Test(
        "a hanging transport fails with the time limit instead of hanging the run",
        .timeLimit(.minutes(10))
    )
    func hanging() async throws {
        let failure = await #expect(throws: TransportConformanceFailure.self) {
            try await check("methods").run(against: HangingTransport(), options: .init(timeLimit: .milliseconds(300)))
        }
        #expect(failure?.message.contains("did not finish within") == true, "\(failure?.description ?? "")")
    }

    @Test("verify reports every failing check at once")
    func verifyAggregates() async throws {
        let failures = await #expect(throws: TransportConformanceFailures.self) {
            // What is checked here is the aggregation: a 4 MiB large body (the progress check collects 4 MiB under
            // the same limit) keeps a busy machine from failing the large-body check on time alone (32 MiB took
            // longer than the time limit while six builds shared two cores).
            try await TransportConformance.verify(ForgivingTransport(), options: .init(largeBodyBytes: 4 << 20))
        }
        let names = Set(failures?.failures.map(\.check) ?? [])
        #expect(
            names == [
                "a body dropped mid-way", "a body shorter than its Content-Length", "idle timeout",
                "request events: the same sequence on every transport",
            ],
            "\(failures?.description ?? "")")
    }

    /// A transport that fails every request without opening a connection.
    struct UnconnectedTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            throw TransportError(.cannotConnect, host: request.head.host, detail: "no route")
        }
    }

    @Test("a transport that never connects gets one failure that says so, not the other checks' misleading ones")
    func verifyUnconnected() async throws {
        let failures = await #expect(throws: TransportConformanceFailures.self) {
            try await TransportConformance.verify(UnconnectedTransport())
        }
        #expect(failures?.failures.map(\.check) == ["connects"], "\(failures?.description ?? "")")
        #expect(
            failures?.description.contains("the transport did not connect to the test server at http://127.0.0.1:")
                == true, "\(failures?.description ?? "")")
        let connects = try #require(TransportConformance.checks.first)
        #expect(connects.name == "connects")
        let single = await #expect(throws: TransportConformanceFailure.self) {
            try await connects.run(against: UnconnectedTransport())
        }
        #expect(single?.message.contains("did not connect") == true)
    }
}
