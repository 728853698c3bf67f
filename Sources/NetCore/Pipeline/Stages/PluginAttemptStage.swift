/// Runs the plugins' per-attempt hooks around each attempt: `willSend`, then `didReceive` and `verify` with the
/// response; sends again when a plugin asks for it.
package struct PluginAttemptStage: RequestStage {
    package let plugins: [any Plugin]
    package let state: RequestState

    package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        while true {
            var attempt = request
            let context = state.beginAttempt(sending: request.bodyLength)
            for plugin in plugins {
                try await plugin.willSend(&attempt, context: context)
            }
            let exchange = try await next(attempt)
            let received = exchange.received
            for plugin in plugins {
                await plugin.didReceive(received, for: exchange.request, context: context)
            }
            var retry = false
            do {
                for plugin in plugins where try await plugin.verify(received, for: exchange.request, context: context) == .retry {
                    retry = true
                    break
                }
            } catch {
                // The plugin's error replaces the response, which stays with it so that renewal and retries
                // still see its status.
                throw ResponseFailure(error: error, exchange: exchange)
            }
            guard retry else { return exchange }
            guard request.isReplayable, state.allowPluginRetry() else {
                throw PluginRetryLimitExceeded(statusCode: exchange.response.statusCode)
            }
            state.nextAttempt(because: .requestedByPlugin)
        }
    }
}
