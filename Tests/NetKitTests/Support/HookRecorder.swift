import Foundation
import NetKitLock
import NetKit

/// A plugin that records every hook call as `name.hook`, in order, into a shared list.
struct HookRecorder: Plugin {
    let name: String
    let priority: PluginPriority
    let log: EventLog

    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        log.append("\(name).prepare")
        return request
    }
    func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        log.append("\(name).willSend#\(context.attempt)")
    }
    func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
        log.append("\(name).didReceive#\(context.attempt):\(response.statusCode)")
    }
    func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
        -> PluginVerdict
    {
        log.append("\(name).verify#\(context.attempt)")
        return .accept
    }
    func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async {
        log.append("\(name).didFinish:\((try? result.get()).map { "\($0.statusCode)" } ?? "failure")")
    }
    func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics, context: PluginContext) async {
        log.append("\(name).wasCancelled")
    }
}

/// A shared, lockable list of lines.
final class EventLog: Sendable {
    private let lines = Lock<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
    func matching(_ fragment: String) -> [String] { all.filter { $0.contains(fragment) } }
}
