import Foundation
import LoopbackServer
import Testing

@Suite("Faults")
struct FaultTests {
    private static let tenBytes = Data("0123456789".utf8)

    @Test func dropAfterBodyBytesEndsTheStreamEarly() throws {
        let server = try makeServer(LoopbackResponse(body: Self.tenBytes, faults: [.dropAfterBodyBytes(4)]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        let rest = try client.readUntilEOF()

        #expect(head.headers.first { $0.name == "Content-Length" }?.value == "10")
        #expect(rest == Array("0123".utf8))
        #expect(server.clientAbortedResponses == 0)
    }

    @Test func declaredContentLengthLiesThenSendsTheRealBody() throws {
        let server = try makeServer(LoopbackResponse(body: Self.tenBytes, faults: [.declaredContentLength(3)]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        let rest = try client.readUntilEOF()

        #expect(head.headers.first { $0.name == "Content-Length" }?.value == "3")
        #expect(head.headers.first { $0.name == "Connection" }?.value == "close")
        #expect(rest == Array("0123456789".utf8))
    }

    @Test func chunkedUsesTheGivenSizesCyclically() throws {
        let body = Data((0..<20).map { UInt8($0) })
        let server = try makeServer(LoopbackResponse(body: body, faults: [.chunked(sizes: [3, 5])]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.chunkSizes == [3, 5, 3, 5, 3, 1])
        #expect(Data(response.body) == body)
        // The connection stays usable: chunked framing is self-delimiting.
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().chunkSizes == [3, 5, 3, 5, 3, 1])
    }

    @Test func splitWritesDeliverTheExactSameBytes() throws {
        let server = try makeServer(
            LoopbackResponse(
                headers: [(name: "X-A", value: "b")],
                body: Data("hello".utf8),
                faults: [.splitWrites(sizes: [1, 2, 7]), .closeAfterResponse]
            ))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let wire = try client.readUntilEOF()

        #expect(
            String(decoding: wire, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nX-A: b\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
    }

    @Test func hugeHeaderAddsPaddingOfTheRequestedSize() throws {
        let server = try makeServer(LoopbackResponse(body: Data("x".utf8), faults: [.hugeHeader(bytes: 200_000)]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.header("X-Padding")?.utf8.count == 200_000)
        #expect(response.bodyText == "x")
    }

    @Test func closeAfterResponseClosesTheConnection() throws {
        let server = try makeServer(LoopbackResponse(body: Data("bye".utf8), faults: [.closeAfterResponse]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.header("Connection") == "close")
        #expect(response.bodyText == "bye")
        #expect(try client.readsEOF())
    }

    @Test func shortDelaysStillDeliverTheWholeResponse() throws {
        let server = try makeServer(
            LoopbackResponse(
                body: Data("late".utf8),
                faults: [.delayBeforeHead(.milliseconds(20)), .delayBeforeBody(.milliseconds(20))]
            ))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try client.readResponse().bodyText == "late")
        #expect(server.clientAbortedResponses == 0)
    }

    @Test func delayBeforeHeadEndsWhenTheClientCloses() async throws {
        let server = try makeServer(LoopbackResponse(faults: [.delayBeforeHead(.seconds(60))]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try await server.waitForRequests(1)
        client.close()

        // Well under the 60 s delay: only the client's close can end the wait this soon.
        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
        try await server.wait(for: .closedConnections, atLeast: 1, timeout: .seconds(10))
        #expect(server.clientAbortedResponses == 1)
    }

    @Test func delayBeforeBodyHoldsTheBodyBackUntilTheClientGivesUp() async throws {
        let server = try makeServer(
            LoopbackResponse(body: Data("never".utf8), faults: [.delayBeforeBody(.seconds(60))]))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        // Not a timing assumption: the body is held back for 60 s, far beyond this 100 ms look.
        let bodyArrived = client.isReadable(within: 100)
        client.close()

        #expect(head.status == 200)
        #expect(head.headers.first { $0.name == "Content-Length" }?.value == "5")
        #expect(!bodyArrived)
        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
    }

    @Test func stopEndsADelayedResponsePromptly() async throws {
        let server = try makeServer(LoopbackResponse(faults: [.delayBeforeHead(.seconds(60))]))
        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try await server.waitForRequests(1)

        let elapsed = measure { server.stop() }

        #expect(elapsed < .seconds(10))
        #expect(try client.readsEOF())
        #expect(server.clientAbortedResponses == 0)
    }

    @Test func clientResetDuringALargeWriteCountsAsAborted() async throws {
        // 32 MiB cannot fit in the socket buffers, so the server is still writing when the client goes away.
        let server = try makeServer(LoopbackResponse(body: Data(count: 32 * 1024 * 1024)))
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        client.close()

        try await server.wait(for: .clientAbortedResponses, atLeast: 1, timeout: .seconds(10))
    }
}
