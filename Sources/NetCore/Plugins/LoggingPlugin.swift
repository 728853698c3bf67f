#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One line per request and per response — method, URL, status, size, duration — and, optionally, each request
/// as a `curl` command; failures at `error` level, so they show at the default level.
///
/// Nothing secret reaches the sink: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, secret-looking
/// headers and body fields, every query value (or those ``RedactionRules`` name), and more header names of your
/// choice are hidden. `NetworkManager` installs one writing to its ``NetworkLogger``; the sink can be anything:
///
/// ```swift
/// let logging = LoggingPlugin(logger: NetworkLogger(subsystem: "com.example.app", minimumLevel: .debug) { level, line in
///     print(level.name, line)
/// }, includesCURL: true, rules: RedactionRules(headerNames: ["X-Signature"]))
/// ```
///
/// | level | lines |
/// | --- | --- |
/// | `debug` | `→ GET https://api.example.com/todos?state=…` before each attempt, `← 200 GET https://api.example.com/todos 1.2 KiB in 18 ms` after it |
/// | `info` | a retry (with its wait) or a resend after a token refresh |
/// | `notice` | a cancelled request |
/// | `error` | a failed request, with its error described without secrets |
///
/// With `includesCURL: true`, each attempt is also written as a `curl` command at `debug` even when the logger's
/// level is higher (the default `error` included): asking for it is enough. Its secrets are hidden like the other
/// lines'; `curlSecrets: .unredactedDoNotUseInProduction` writes them out, so that the line can be pasted into a
/// terminal to send the same request.
public struct LoggingPlugin: Plugin {
    /// Where lines go and which levels are written.
    public let logger: NetworkLogger
    /// Whether each attempt is also written as a `curl` command: at `debug`, and whatever the logger's minimum
    /// level (asking for it is enough), unless the logger writes nothing (``NetworkLogger/disabled``).
    public let includesCURL: Bool
    /// Whether those `curl` lines hide secrets (the default) or reproduce the request exactly, credentials included.
    public let curlSecrets: CURLSecrets
    /// What is hidden besides the standard secrets.
    public let rules: RedactionRules

    /// Creates the plugin.
    ///
    /// `curlSecrets: .unredactedDoNotUseInProduction` writes tokens, cookies and query values into the log: only
    /// for a developer reproducing a request on their own machine.
    public init(
        logger: NetworkLogger,
        includesCURL: Bool = false,
        curlSecrets: CURLSecrets = .hidden,
        rules: RedactionRules = .standard
    ) {
        self.logger = logger
        self.includesCURL = includesCURL
        self.curlSecrets = curlSecrets
        self.rules = rules
    }

    /// A copy writing to `logger`, every other setting kept.
    public func with(logger: NetworkLogger) -> LoggingPlugin {
        LoggingPlugin(logger: logger, includesCURL: includesCURL, curlSecrets: curlSecrets, rules: rules)
    }

    /// Runs after the other plugins, so it logs the request as they left it.
    public var priority: PluginPriority { .low }

    /// Logs the attempt about to be sent.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        switch context.reason {
        case .initial: break
        case .retry(let wait):
            logger.log(.info, "\(line(request)): attempt \(context.attempt) after waiting \(milliseconds(wait))")
        case .refreshedCredential: logger.log(.info, "\(line(request)): credential renewed after 401, sending again")
        case .requestedByPlugin: logger.log(.info, "\(line(request)): a plugin asked for attempt \(context.attempt)")
        }
        if logger.isEnabled(.debug) { logger.log(.debug, "→ \(line(request))") }
        if includesCURL {
            logger.logRegardlessOfLevel(.debug, CURLCommand.render(request, rules: rules, secrets: curlSecrets))
        }
    }

    /// Logs the response with its size and the attempt's duration.
    public func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
        guard logger.isEnabled(.debug) else { return }
        let size = response.body.map { Self.size($0.count) } ?? (context.isStreaming ? "streaming" : "body not read")
        logger.log(
            .debug, "← \(response.statusCode) \(line(request)) \(size) in \(milliseconds(.now - context.startedAt))")
    }

    /// Logs a failure at `error` level.
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics
    ) async {
        guard case .failure(let error) = result, !(error is CancellationError) else { return }
        logger.log(
            .error,
            "\(line(request)) failed after \(metrics.attempts) attempt(s) in \(milliseconds(metrics.duration)): \(LogRedaction.describe(error))"
        )
    }

    /// Logs a cancellation at `notice` level.
    public func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics) async {
        logger.log(.notice, "\(line(request)) cancelled")
    }

    private func line(_ request: TransportRequest) -> String {
        "\(request.method.rawValue) \(LogRedaction.target(request.head, rules: rules))"
    }

    private func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return value < 10 ? "\(Self.oneDecimal(value)) ms" : "\(Int(value.rounded())) ms"
    }

    private static func size(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: "\(bytes) B"
        case ..<(1024 * 1024): "\(oneDecimal(Double(bytes) / 1024)) KiB"
        default: "\(oneDecimal(Double(bytes) / 1024 / 1024)) MiB"
        }
    }

    /// `value` with one decimal, rounded: `1.2`.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}

extension LoggingPlugin: SelectivePlugin {
    /// Only the hooks that can write at the logger's level: at the default (`error`) that is a failure's
    /// `didFinish` alone (and `willSend` when curl lines are asked for), and a request that succeeds makes no call
    /// to the plugin at all.
    package var hooks: PluginHooks {
        var hooks: PluginHooks = []
        // Retries and renewals are written at `info`, every attempt at `debug`. A requested curl line at any level.
        if logger.isEnabled(.info) || (includesCURL && logger.minimumLevel != nil) { hooks.insert(.willSend) }
        if logger.isEnabled(.debug) { hooks.insert(.didReceive) }
        if logger.isEnabled(.notice) { hooks.insert(.wasCancelled) }
        if logger.isEnabled(.error) { hooks.insert(.didFail) }
        return hooks
    }
}
