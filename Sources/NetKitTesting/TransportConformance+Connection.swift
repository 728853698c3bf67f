import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// How long ``connects`` waits for the transport's first request before it says the transport did not connect.
    static let connectionWait = Duration.seconds(30)

    /// The transport reaches a server on 127.0.0.1 and returns its answer: the check every other one builds on.
    /// ``verify(_:options:)`` runs it first and, when it fails, reports it alone: the other checks' failures would
    /// only repeat it in misleading words ("a request was smuggled", "the transport hangs").
    static let connects = TransportConformanceCheck("connects") { context in
        let server = try context.server { _ in .text("hello") }
        defer { server.stop() }
        let request = try context.request(server.baseURL.appendingPathComponent("hello"))
        let transport = context.transport
        let outcome = await withTaskGroup(of: Result<Int, any Error>?.self) { group in
            group.addTask {
                do {
                    let response = try await transport.send(request)
                    return .success(response.statusCode)
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: connectionWait)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        let arrived = server.requestCount > 0
        switch outcome {
        case .success(200) where arrived:
            return
        case .success(let status):
            throw context.failure(
                arrived
                    ? "the server answered 200, but the transport returned status \(status)"
                    : "the transport returned status \(status) without sending the request to \(server.baseURL)")
        case .failure(let error) where !arrived:
            throw context.failure(
                "the transport did not connect to the test server at \(server.baseURL): it threw \(error)")
        case .failure(let error):
            throw context.failure("the server received the request, but the transport threw \(error)")
        case nil:
            throw context.failure(
                arrived
                    ? "the server answered, but the transport returned nothing within \(connectionWait)"
                    : "the transport did not connect to the test server at \(server.baseURL) within "
                        + "\(connectionWait): no request arrived")
        }
    }
}
