#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs the plugins' per-attempt hooks around each attempt: `willSend`, then `didReceive` and `verify` with the
/// response; sends again when a plugin asks for it, and goes on with a plugin's replacement response when one
/// gives it (``PluginVerdict/replace(_:)``).
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
            let exchange: Exchange
            do {
                for plugin in plugins.taking(.willSend) {
                    try await plugin.willSend(&attempt, context: context)
                }
                exchange = try await next(attempt)
                state.emitAttemptEnd(context.attempt, status: exchange.response.statusCode)
            } catch {
                state.emitAttemptEnd(context.attempt, failure: error)
                throw error
            }
            // When no plugin looks at the response, the attempt is counted and that is all.
            guard plugins.any(.didReceive) || plugins.any(.verify) else { return exchange }
            let received = exchange.received
            for plugin in plugins.taking(.didReceive) {
                await plugin.didReceive(received, for: exchange.request, context: context)
            }
            var retry = false
            var current = received
            var replaced = false
            do {
                verdicts: for plugin in plugins.taking(.verify) {
                    switch try await plugin.verify(current, for: exchange.request, context: context) {
                    case .accept:
                        continue
                    case .retry:
                        retry = true
                        break verdicts
                    case .replace(let replacement):
                        // Later plugins judge the replacement, as everything after this stage will.
                        current = replacement
                        replaced = true
                    }
                }
            } catch {
                // The plugin's error replaces the response, which stays with it so that renewal and retries
                // still see its status.
                throw ResponseFailure(
                    error: error, exchange: replaced ? Self.exchange(exchange, replacedBy: current) : exchange)
            }
            guard retry else { return replaced ? Self.exchange(exchange, replacedBy: current) : exchange }
            guard request.isReplayable, state.allowPluginRetry() else {
                throw PluginRetryLimitExceeded(statusCode: exchange.response.statusCode)
            }
            state.nextAttempt(because: .requestedByPlugin)
        }
    }

    /// `exchange` with a plugin's response in place of the server's: the status check, retries, renewal and
    /// decoding see `replacement` as if the server had sent it; its body, if any, is the body a stream hands out.
    static func exchange(_ exchange: Exchange, replacedBy replacement: ReceivedResponse) -> Exchange {
        var replaced = exchange
        replaced.response = TransportResponse(
            head: replacement.head,
            body: ResponseBody(data: replacement.body ?? Data()),
            url: replacement.url,
            headReceivedAt: exchange.response.headReceivedAt
        )
        replaced.data = replacement.body
        replaced.isTruncated = replacement.isBodyTruncated
        return replaced
    }
}
