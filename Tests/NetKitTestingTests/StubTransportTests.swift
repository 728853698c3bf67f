import Foundation
import NetCore
import NetKitTesting
import Testing

@Suite("Stub transport")
struct StubTransportTests {
    @Test("records requests with their bodies and answers in order")
    func scripted() async throws {
        let stub = StubTransport(replies: [.status(201), .json("{}")])
        let head = try HTTPRequestHead(method: .post, url: URL(string: "https://x.test/a")!)
        let first = try await stub.send(TransportRequest(head: head, body: UploadSource(data: Data("hi".utf8))))
        #expect(first.statusCode == 201)
        _ = try await stub.send(
            TransportRequest(head: head, body: UploadSource(stream: InputStream(data: Data("yo".utf8)), length: nil)))
        await #expect(throws: StubTransport.ScriptExhausted(replies: 2)) {
            try await stub.send(TransportRequest(head: head))
        }
        #expect(stub.requests.map(\.body) == [Data("hi".utf8), Data("yo".utf8), Data()])
        #expect(stub.requests.map(\.hasBody) == [true, true, false])
        #expect(stub.requests.allSatisfy { $0.method == .post && $0.url?.absoluteString == "https://x.test/a" })
    }

    @Test("a stream payload can be sent only once")
    func streamOnce() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        let request = TransportRequest(
            head: try HTTPRequestHead(url: URL(string: "https://x.test")!),
            body: UploadSource(stream: InputStream(data: Data()), length: nil))
        _ = try await stub.send(request)
        await #expect(throws: NetworkError.uploadStreamConsumed) { try await stub.send(request) }
    }
}
