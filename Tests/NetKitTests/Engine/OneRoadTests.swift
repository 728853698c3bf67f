import Foundation
import Testing
@testable import NetKit
import NetKitTesting

/// `send`, `streamingResponse` (the road of `stream()`) and `forward` (the road of NetOpenAPI's transport) take one
/// road: the same plugins' hooks, in the same order, over the stub transport.
@Suite("One road for send, stream and forward (stub transport)")
struct OneRoadTests {
    struct GetItem: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/items/1" }
        var method: HTTPMethod { .get }
    }

    enum Road: String, CaseIterable, Sendable {
        case send, stream, forward
    }

    /// The hooks `road` runs for one GET the stub answers with `status` (the engine's plugins: a high-priority one,
    /// then a normal one).
    static func hooks(on road: Road, status: Int) async -> [String] {
        let log = EventLog()
        let executor = RequestExecutor(
            transport: StubTransport { _, _ in .status(status) },
            plugins: [
                HookRecorder(name: "a", priority: .high, log: log),
                HookRecorder(name: "b", priority: .normal, log: log),
            ])
        do {
            switch road {
            case .send:
                _ = try await executor.send(GetItem(), baseURL: stubBase)
            case .stream:
                let (response, _) = try await executor.streamingResponse(for: GetItem(), baseURL: stubBase)
                for try await _ in response.body {}
            case .forward:
                let head = try HTTPRequestHead(method: .get, url: stubBase.appending(path: "items/1"))
                let (response, _) = try await executor.forward(TransportRequest(head: head), options: .init())
                for try await _ in response.body {}
            }
        } catch {
            log.append("threw")
        }
        return log.all
    }

    @Test("a success runs the same hooks in the same order on every road")
    func sameHooksOnSuccess() async {
        let expected = [
            "a.prepare", "b.prepare", "a.willSend#1", "b.willSend#1", "a.didReceive#1:204", "b.didReceive#1:204",
            "a.verify#1", "b.verify#1", "a.didFinish:204", "b.didFinish:204",
        ]
        for road in Road.allCases {
            #expect(await Self.hooks(on: road, status: 204) == expected, "\(road.rawValue)")
        }
    }

    @Test("a failed status runs the same hooks before the road's delivery decides")
    func sameHooksOnFailure() async {
        let send = await Self.hooks(on: .send, status: 404)
        #expect(await Self.hooks(on: .stream, status: 404) == send)
        // forward hands a failed status over as the response: the hooks up to the end are the same, and
        // `didFinish` sees it as a success.
        let forward = await Self.hooks(on: .forward, status: 404)
        #expect(Array(forward.prefix(8)) == Array(send.prefix(8)))
        #expect(forward.suffix(2) == ["a.didFinish:404", "b.didFinish:404"])
        #expect(send.suffix(3) == ["a.didFinish:failure", "b.didFinish:failure", "threw"])
    }
}
