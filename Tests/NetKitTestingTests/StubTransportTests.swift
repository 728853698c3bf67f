import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetKitTesting
import NetMultipart
import Testing

@Suite("Stub transport")
struct StubTransportTests {
    @Test("records requests with their bodies and answers in order")
    func scripted() async throws {
        let stub = StubTransport(replies: [.status(201), .json("{}")])
        var head = URLRequest(url: URL(string: "https://x.test/a")!)
        head.httpMethod = "POST"
        let first = try await stub.send(TransportRequest(head: head, payload: .data(Data("hi".utf8))))
        #expect(first.statusCode == 201)
        _ = try await stub.send(TransportRequest(head: head, payload: .source(UploadSource(stream: InputStream(data: Data("yo".utf8)), length: nil))))
        await #expect(throws: StubTransport.ScriptExhausted(replies: 2)) { try await stub.send(TransportRequest(head: head)) }
        #expect(stub.requests.map(\.body) == [Data("hi".utf8), Data("yo".utf8), Data()])
    }

    @Test("a stream payload can be sent only once")
    func streamOnce() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        let request = TransportRequest(head: URLRequest(url: URL(string: "https://x.test")!), payload: .source(UploadSource(stream: InputStream(data: Data()), length: nil)))
        _ = try await stub.send(request)
        await #expect(throws: NetworkError.uploadStreamConsumed) { try await stub.send(request) }
    }
}
