import Foundation
import Testing
import NetKit
import NetKitTesting

@Suite("Response size limits")
struct ResponseLimitsTests {
    struct Flaky: NetworkRequest {
        typealias Response = User
        var path: String { "/flaky" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0) }
    }

    @Test("an oversized error body keeps its status and headers, is marked truncated, and a 503 is still retried")
    func oversizeErrorKeepsStatus() async throws {
        let chunk = Data(repeating: 0x41, count: 256 * 1024)
        let stub = StubTransport(replies: [
            StubTransport.Reply(status: 503, headers: ["Retry-After": "0"], chunks: Array(repeating: chunk, count: 8)),
            StubTransport.Reply(status: 503, headers: ["X-Trace": "t2"], chunks: Array(repeating: chunk, count: 8)),
        ])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let error = await #expect(throws: HTTPError.self) { try await manager.send(Flaky(), accessToken: nil) }
        #expect(stub.requestCount == 2, "the first 503 was retried")
        #expect(error?.statusCode == 503)
        #expect(error?.value(forHeader: "x-trace") == "t2")
        #expect(error?.isTruncated == true)
        #expect(error?.data.count == 1 << 20)
    }

    @Test("the manager's limits are configurable and documented")
    func configurableLimits() async throws {
        let stub = StubTransport(replies: [
            .json(#"{"id":1,"name":"a name longer than thirty bytes"}"#),
            .json(#"{"message":"0123456789"}"#, status: 400),
        ])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        #expect(manager.responseLimit == 64 << 20)
        #expect(manager.errorPayloadLimit == 1 << 20)
        manager.responseLimit = 30
        manager.errorPayloadLimit = 5
        await #expect(throws: NetworkError.responseTooLarge(limitBytes: 30)) {
            try await manager.send(GetUser(), accessToken: nil)
        }
        let error = await #expect(throws: HTTPError.self) { try await manager.send(GetUser(), accessToken: nil) }
        #expect(error?.data == Data(#"{"mes"#.utf8))
        #expect(error?.isTruncated == true)
    }

    @Test("a HEAD whose Content-Length declares a huge file succeeds without reserving it")
    func headOfHugeFile() async throws {
        struct Head: NetworkRequest {
            typealias Response = StatusCodeResponse
            var path: String { "/big.iso" }
            var method: HTTPMethod { .head }
        }
        let stub = StubTransport(replies: [.status(200, headers: ["Content-Length": "\(1 << 42)"])])
        let response = try await NetworkManager(baseURL: stubBase, transport: stub).send(Head(), accessToken: nil)
        #expect(response.statusCode == 200)
        #expect(response.value(forHeader: "content-length") == "\(1 << 42)")
    }

    @Test("a 2xx declaring a Content-Length beyond responseLimit fails at its head, before a byte of it is read")
    func declaredBeyondLimit() async throws {
        // A body that never ends: only refusing at the head lets the request end.
        struct Trickling: HTTPTransport {
            // The continuation is kept, so the body stays open for as long as the transport lives.
            let stream = AsyncThrowingStream.makeStream(of: Data.self)

            func send(_ request: TransportRequest) async throws -> TransportResponse {
                TransportResponse(
                    head: HTTPResponseHead(
                        statusCode: 200, headerFields: try HTTPHeaderFields(["Content-Length": "2000000000"])),
                    body: ResponseBody(stream.stream))
            }
        }
        let manager = NetworkManager(baseURL: stubBase, transport: Trickling())
        await #expect(throws: NetworkError.responseTooLarge(limitBytes: 64 << 20)) {
            try await manager.send(GetUser(), accessToken: nil)
        }
    }

    @Test("an encoded body's declared length is not its decoded one, so it is read as usual")
    func encodedDeclaredLengthIsRead() async throws {
        let limits = WholeBodyLimits(success: 10, failure: 10)
        func head(_ fields: [String: String], status: Int = 200) -> HTTPResponseHead {
            HTTPResponseHead(statusCode: status, headerFields: try! HTTPHeaderFields(fields))
        }
        #expect(limits.refusesAtHead(head(["Content-Length": "11"]), method: .get))
        #expect(limits.refusesAtHead(head(["Content-Length": "11", "Content-Encoding": " Identity "]), method: .get))
        #expect(!limits.refusesAtHead(head(["Content-Length": "10"]), method: .get))
        #expect(!limits.refusesAtHead(head(["Content-Length": "11", "Content-Encoding": "gzip"]), method: .get))
        #expect(!limits.refusesAtHead(head(["Content-Length": "11"]), method: .head))
        #expect(!limits.refusesAtHead(head(["Content-Length": "11"], status: 204), method: .get))
        #expect(!limits.refusesAtHead(head(["Content-Length": "11"], status: 500), method: .get))
        #expect(!limits.refusesAtHead(head([:]), method: .get))
    }
}
