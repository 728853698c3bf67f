import Foundation
import NetKitLock
import Testing
import NetKit
import NetKitTesting

@Suite("A plugin's verdict replaces the response (SmartNetwork's StopTheLine .replace)")
struct PluginReplaceTests {
    /// Replaces responses of one status with another response.
    struct Replacer: Plugin {
        let status: Int
        let replacement: ReceivedResponse
        var priority: PluginPriority = .normal

        func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
            -> PluginVerdict
        {
            response.statusCode == status ? .replace(replacement) : .accept
        }
    }

    /// Records the statuses and bodies its `verify` and `didFinish` see.
    final class Witness: Plugin, Sendable {
        let priority: PluginPriority = .low
        let seen = Lock<[String]>([])

        func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
            -> PluginVerdict
        {
            seen.withLock {
                $0.append("verify \(response.statusCode) \(String(decoding: response.body ?? Data(), as: UTF8.self))")
            }
            return .accept
        }

        func didFinish(
            _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics
        ) async {
            let outcome = (try? result.get()).map { "finish \($0.statusCode)" } ?? "finish failure"
            seen.withLock { $0.append(outcome) }
        }
    }

    static let ok = ReceivedResponse(
        head: HTTPResponseHead(
            statusCode: 200, headerFields: try! HTTPHeaderFields(["Content-Type": "application/json"])),
        body: Data(#"{"id":7,"name":"stand-in"}"#.utf8)
    )

    @Test("a replaced 500 goes on as the 200 that replaced it and decodes; later plugins verify the replacement")
    func replacedFailureDecodes() async throws {
        let stub = StubTransport(replies: [.data(Data("down".utf8), status: 500)])
        let witness = Witness()
        let manager = NetworkManager(
            baseURL: stubBase, transport: stub,
            plugins: [Replacer(status: 500, replacement: Self.ok, priority: .high), witness])
        let user = try await manager.send(GetUser(), accessToken: nil)
        #expect(user == User(id: 7, name: "stand-in"))
        #expect(witness.seen.withLock { $0 } == [#"verify 200 {"id":7,"name":"stand-in"}"#, "finish 200"])
        #expect(stub.requestCount == 1)
    }

    @Test("a replaced 200 fails the status check as an HTTPError with the replacement's status and body")
    func replacedSuccessFails() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#)])
        let replacement = ReceivedResponse(head: HTTPResponseHead(statusCode: 409), body: Data("conflict".utf8))
        let manager = NetworkManager(
            baseURL: stubBase, transport: stub, plugins: [Replacer(status: 200, replacement: replacement)])
        let error = await #expect(throws: HTTPError.self) { try await manager.send(GetUser(), accessToken: nil) }
        #expect(error?.statusCode == 409)
        #expect(error?.data == Data("conflict".utf8))
    }

    @Test("a replacement is judged by the retry rules as the server's response would be")
    func replacementRetried() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#), .json(#"{"id":2,"name":"bob"}"#)])
        let unavailable = ReceivedResponse(head: HTTPResponseHead(statusCode: 503), body: nil)
        /// Replaces the first response only.
        final class Once: Plugin, Sendable {
            let used = Lock(false)
            let replacement: ReceivedResponse
            init(_ replacement: ReceivedResponse) { self.replacement = replacement }
            func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext)
                async throws -> PluginVerdict
            {
                used.withLock { used in
                    defer { used = true }
                    return used
                } ? .accept : .replace(replacement)
            }
        }
        let manager = NetworkManager(baseURL: stubBase, transport: stub, plugins: [Once(unavailable)])
        let user = try await manager.send(GetUser(retries: 1), accessToken: nil)
        #expect(user.id == 2)
        #expect(stub.requestCount == 2)
    }

    @Test("a replacement without a body decodes as an empty body")
    func replacementWithoutBody() async throws {
        let stub = StubTransport(replies: [.json(#"{"id":1,"name":"ann"}"#), .json(#"{"id":1,"name":"ann"}"#)])
        let empty = ReceivedResponse(head: HTTPResponseHead(statusCode: 204), body: nil)
        let manager = NetworkManager(
            baseURL: stubBase, transport: stub, plugins: [Replacer(status: 200, replacement: empty)])
        _ = try await manager.send(DeleteUser(), accessToken: nil)
        await #expect(throws: (any Error).self) { try await manager.send(GetUser(), accessToken: nil) }
    }

    @Test("stream hands out the replacement's body")
    func streamReplaced() async throws {
        let stub = StubTransport(replies: [.data(Data("original".utf8), status: 200)])
        let replacement = ReceivedResponse(head: HTTPResponseHead(statusCode: 200), body: Data("replaced".utf8))
        let manager = NetworkManager(
            baseURL: stubBase, transport: stub, plugins: [Replacer(status: 200, replacement: replacement)])
        let stream = try await manager.stream(GetUser(), accessToken: nil)
        var bytes = Data()
        for try await chunk in stream.chunks { bytes.append(chunk) }
        #expect(bytes == Data("replaced".utf8))
    }

    @Test("verdicts are equatable, a replacement by its head, body and URL")
    func equatable() {
        #expect(PluginVerdict.replace(Self.ok) == .replace(Self.ok))
        #expect(PluginVerdict.replace(Self.ok) != .accept)
        let other = ReceivedResponse(head: Self.ok.head, body: Data("x".utf8))
        #expect(PluginVerdict.replace(Self.ok) != .replace(other))
    }
}
