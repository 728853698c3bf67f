import LoopbackServer
import Testing

@Suite("A closed port refuses connections")
struct LoopbackClosedPortTests {
    @Test func refusesWhileItLives() throws {
        let closed = try LoopbackClosedPort()
        #expect(closed.port > 0)
        #expect(throws: TestClientError.self) { try TestClient(port: closed.port) }
    }
}
