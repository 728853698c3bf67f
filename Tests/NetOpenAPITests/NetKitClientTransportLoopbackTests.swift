#if OpenAPI
import Foundation
import HTTPTypes
import LoopbackServer
import NetCore
import NetOpenAPI
import NetTransport
import OpenAPIRuntime
import NetKitLock
import Testing

#if AsyncHTTPClient
import NetAsyncHTTPClient
#endif

/// The NetKit transports a generated client can run on, each made afresh for a test.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible {
    case urlSession
    #if AsyncHTTPClient
    case asyncHTTPClient
    #endif

    var testDescription: String { rawValue }

    /// Whether the transport reads request bodies on threads of its own (so NetOpenAPI streams them).
    var readsBodiesOnOwnThreads: Bool {
        switch self {
        case .urlSession: (URLSessionTransport() as any HTTPTransport) is any ReadsRequestBodiesOnOwnThreads
        #if AsyncHTTPClient
        case .asyncHTTPClient: true
        #endif
        }
    }

    /// A transport of this kind, and how to shut it down.
    func make() -> (transport: any HTTPTransport, shutdown: @Sendable () async throws -> Void) {
        switch self {
        case .urlSession:
            return (URLSessionTransport(), {})
        #if AsyncHTTPClient
        case .asyncHTTPClient:
            let transport = AsyncHTTPClientTransport()
            return (transport, { try await transport.shutdown() })
        #endif
        }
    }
}

@Suite("NetKitClientTransport over loopback TCP", .timeLimit(.minutes(10)))
struct NetKitClientTransportLoopbackTests {
    @Test("a request body of unknown length arrives whole in one request", arguments: TransportKind.allCases)
    func streamedUpload(_ kind: TransportKind) async throws {
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .digested) { .uploadReport(for: $0) }
        defer { server.stop() }
        let (netTransport, shutdown) = kind.make()
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: netTransport))
        let chunks = (0..<48).map { pattern(64 * 1024 + $0, seed: UInt8($0)) }
        let (response, body) = try await transport.send(
            request(.post, "/upload", [("Content-Type", "application/octet-stream")]),
            body: singlePassBody(chunks), baseURL: server.baseURL, operationID: "upload")
        let report = try JSONDecoder().decode(LoopbackUploadReport.self, from: try await collect(body))
        try await shutdown()
        let sent = chunks.reduce(Data(), +)
        #expect(response.status.code == 200)
        // Streamed, its length is unknown until the end; gathered first (URLSession), it is known.
        #expect(report.wasChunked == kind.readsBodiesOnOwnThreads)
        #expect(report.digest == LoopbackBodyDigest(body: sent, contentType: "application/octet-stream"))
        #expect(server.requestCount == 1)
    }

    @Test("a streamed body of declared length is sent with that Content-Length", arguments: TransportKind.allCases)
    func streamedUploadWithLength(_ kind: TransportKind) async throws {
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .digested) { .uploadReport(for: $0) }
        defer { server.stop() }
        let (netTransport, shutdown) = kind.make()
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: netTransport))
        let data = pattern(3 * 1024 * 1024 + 5)
        let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
            var offset = 0
            while offset < data.count {
                continuation.yield(ArraySlice(data[offset..<min(offset + 100_000, data.count)]))
                offset += 100_000
            }
            continuation.finish()
        }
        let (_, body) = try await transport.send(
            request(.put, "/file"), body: HTTPBody(stream, length: .known(Int64(data.count))),
            baseURL: server.baseURL, operationID: "putFile")
        let report = try JSONDecoder().decode(LoopbackUploadReport.self, from: try await collect(body))
        try await shutdown()
        #expect(report.contentLength == data.count)
        #expect(!report.wasChunked)
        #expect(report.digest == LoopbackBodyDigest(body: data, contentType: nil))
    }

    @Test(
        "a request body that breaks mid-way fails the call; the server never sees a complete request",
        arguments: TransportKind.allCases)
    func brokenUploadFails(_ kind: TransportKind) async throws {
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .digested) { .uploadReport(for: $0) }
        defer { server.stop() }
        let (netTransport, shutdown) = kind.make()
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: netTransport))
        let error = await #expect(throws: (any Error).self) {
            _ = try await transport.send(
                request(.post, "/upload"), body: singlePassBody([pattern(200_000)], failingWith: BodyBroke()),
                baseURL: server.baseURL, operationID: "upload")
        }
        if !kind.readsBodiesOnOwnThreads {
            #expect(error is BodyBroke, "gathered before sending, the body's own error reaches the caller")
        }
        try await shutdown()
        #expect(server.requestCount == 0)
    }

    @Test(
        "a single-pass body: streamed and sent once where the transport can wait for it, gathered and retried on URLSession",
        arguments: TransportKind.allCases)
    func singlePassBodyRetries(_ kind: TransportKind) async throws {
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .digested) { request in
            LoopbackResponse(status: 503, headers: [(name: "Retry-After", value: "0")], body: Data("busy".utf8))
        }
        defer { server.stop() }
        let (netTransport, shutdown) = kind.make()
        var transport = NetKitClientTransport(
            executor: RequestExecutor(transport: netTransport, clock: WaitRecordingClock()))
        transport.retryPolicy = RetryPolicy(maxRetryCount: 2, jitter: .none)
        transport.idempotentOperations = ["upload"]
        let (response, body) = try await transport.send(
            request(.put, "/avatar"), body: singlePassBody([pattern(1000)]), baseURL: server.baseURL,
            operationID: "upload")
        #expect(response.status.code == 503)
        #expect(try await collect(body) == Data("busy".utf8))
        try await shutdown()
        #expect(server.requestCount == (kind.readsBodiesOnOwnThreads ? 1 : 3))
    }

    @Test("on URLSession a body past the memory bound is sent from a temporary file, deleted when the call returns")
    func largeBodyThroughTemporaryFile() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-openapi-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let filesWhileSending = Lock<[String]>([])
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .digested) { request in
            filesWhileSending.withLock {
                $0 = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
            }
            return .uploadReport(for: request)
        }
        defer { server.stop() }
        var transport = NetKitClientTransport(executor: RequestExecutor(transport: URLSessionTransport()))
        transport.replayableBodyLimit = 64 * 1024
        transport.temporaryDirectory = scratch
        let chunks = (0..<20).map { pattern(50_000, seed: UInt8($0)) }
        let (response, body) = try await transport.send(
            request(.post, "/upload"), body: singlePassBody(chunks), baseURL: server.baseURL, operationID: "upload")
        let report = try JSONDecoder().decode(LoopbackUploadReport.self, from: try await collect(body))
        #expect(response.status.code == 200)
        #expect(report.contentLength == 1_000_000)
        #expect(report.digest.sha256 == LoopbackBodyDigest(body: chunks.reduce(Data(), +), contentType: nil).sha256)
        let during = filesWhileSending.withLock { $0 }
        #expect(during.count == 1 && during.allSatisfy { $0.hasPrefix("netkit-openapi-body-") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    @Test(
        "the response body reaches the client as it arrives, before the server has sent the rest",
        arguments: TransportKind.allCases)
    func responseStreams(_ kind: TransportKind) async throws {
        let gate = try LoopbackGate()
        let server = try LoopbackServer { _ in
            .streamed(headers: [(name: "Content-Type", value: "text/event-stream")]) { writer in
                _ = writer.write("data: one\n\n")
                // The gate opens as soon as the client has the first event; the bound only ends a hung test, and is
                // long because the whole suite beside this one on two cores was seen to delay that event past 20 s.
                guard writer.wait(for: gate, timeout: .seconds(120)) else { return writer.abort() }
                _ = writer.write("data: two\n\n")
            }
        }
        defer { server.stop() }
        let (netTransport, shutdown) = kind.make()
        let transport = NetKitClientTransport(executor: RequestExecutor(transport: netTransport))
        let (response, body) = try await transport.send(
            request(.get, "/events"), body: nil, baseURL: server.baseURL, operationID: "watchEvents")
        #expect(response.headerFields[.contentType] == "text/event-stream")
        var events: [String] = []
        for try await event in try #require(body).asDecodedServerSentEvents() {
            events.append(event.data ?? "")
            if events.count == 1 { gate.open() }
        }
        try await shutdown()
        #expect(events == ["one", "two"])
    }
}
#endif
