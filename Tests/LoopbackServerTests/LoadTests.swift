import Foundation
import LoopbackServer
import Testing

@Suite("Load")
struct LoadTests {
    @Test func sixtyFourConnectionsWithRequestsInFlightTogether() async throws {
        let server = try LoopbackServer { .text("\($0.connectionNumber) \($0.path)") }
        defer { server.stop() }
        let clients = try (0..<64).map { _ in try TestClient(port: server.port) }
        let rounds = 20

        var wrong = 0
        for round in 0..<rounds {
            // Every client's request is sent before any answer is read: 64 requests in flight at once.
            for client in clients { try client.send("GET /\(round) HTTP/1.1\r\nHost: x\r\n\r\n") }
            for client in clients where !(try client.readResponse().bodyText.hasSuffix(" /\(round)")) { wrong += 1 }
        }
        for client in clients { client.close() }
        try await server.wait(for: .closedConnections, atLeast: 64)

        #expect(wrong == 0)
        #expect(server.acceptedConnections == 64)
        #expect(server.requestCount == 64 * rounds)
        #expect(Set(server.requests.map(\.connectionNumber)) == Set(1...64))
    }

    /// 20,000 keeps the debug suite quick while still far beyond any connection-reuse bug's reach.
    @Test func twentyThousandRequestsOnOneKeepAliveConnection() async throws {
        let server = try LoopbackServer(limits: LoopbackLimits(maxRecordedRequests: 10)) { .text($0.path) }
        defer { server.stop() }
        let batches = 40
        let perBatch = 500
        let wrong = try await onDedicatedThread {
            let client = try TestClient(port: server.port)
            var wrong = 0
            for batch in 0..<batches {
                // Pipelined in batches, and checked byte for byte against the known answers, so the test
                // takes seconds, not minutes; the server still reads and answers one request at a time.
                var wire = ""
                var expected = ""
                for index in 0..<perBatch {
                    let path = "/\(batch * perBatch + index)"
                    wire += "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n"
                    expected +=
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        + "Content-Length: \(path.utf8.count)\r\n\r\n\(path)"
                }
                try client.send(wire)
                if try client.readExactly(expected.utf8.count) != Array(expected.utf8) { wrong += 1 }
            }
            client.close()
            return wrong
        }
        try await server.wait(for: .closedConnections, atLeast: 1)

        #expect(wrong == 0)
        #expect(server.requestCount == batches * perBatch)
        #expect(server.requests.map(\.path) == (0..<10).map { "/\($0)" })
        #expect(server.acceptedConnections == 1)
        #expect(server.peakReceiveBufferBytes <= 128 * 1024)
    }
}
