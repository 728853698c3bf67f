/// Runs the plugins' per-attempt hooks around each attempt: `willSend`, then `didReceive` and `verify` with the
/// response; sends again when a plugin asks for it.
package struct PluginAttemptStage: RequestStage {
    package let plugins: PluginList
    package let state: RequestState

    /// Whether no plugin takes part in a per-attempt hook: then the attempt is only counted.
    package var isEmpty: Bool {
        !plugins.any(.willSend) && !plugins.any(.didReceive) && !plugins.any(.verify)
    }

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        while true {
            var attempt = request
            let context = state.beginAttempt(sending: request.bodyLength)
            for plugin in plugins.taking(.willSend) {
                try await plugin.willSend(&attempt, context: context)
            }
            let exchange = try await next(attempt)
            // When no plugin looks at the response, the attempt is counted and that is all.
            guard plugins.any(.didReceive) || plugins.any(.verify) else { return exchange }
            let received = exchange.received
            for plugin in plugins.taking(.didReceive) {
                await plugin.didReceive(received, for: exchange.request, context: context)
            }
            var retry = false
            do {
                for plugin in plugins.taking(.verify) where try await plugin.verify(received, for: exchange.request, context: context) == .retry {
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
