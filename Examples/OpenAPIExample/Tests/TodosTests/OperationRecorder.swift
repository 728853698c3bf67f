import NetCore
import Synchronization

/// A NetKit plugin that notes the OpenAPI `operationId` of every attempt the engine sends, as a logging or metrics
/// plugin would see it.
final class OperationRecorder: Plugin {
    private let attempts = Mutex<[String?]>([])

    /// The operation of each attempt, in the order they were sent.
    var recorded: [String?] { attempts.withLock { $0 } }

    func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        attempts.withLock { $0.append(request.operationID) }
    }
}
