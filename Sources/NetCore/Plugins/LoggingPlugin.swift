#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One line per request and per response — method, URL, status, size, duration — and, optionally, each request
/// as a `curl` command; failures at `error` level, so they show at the default level.
///
/// Nothing secret reaches the sink: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, secret-looking
/// headers and body fields, every header and query item the request declares as a credential
/// (``TransportRequest/credentialFields``: what plugins such as NetAuth's `TokenPlugin` and the engine's
/// ``RequestExecutor/Configuration/credentialFields`` declare, whatever the rules say), every query value (or those
/// ``RedactionRules`` name), and more header names of your choice are hidden. `NetworkManager` installs one writing to its ``NetworkLogger``; the sink can be anything:
///
/// ```swift
/// let logging = LoggingPlugin(logger: NetworkLogger(subsystem: "com.example.app", minimumLevel: .debug) { level, line in
///     print(level.name, line)
/// }, includesCURL: true, rules: RedactionRules(headerNames: ["X-Signature"]))
/// ```
///
/// | level | lines |
/// | --- | --- |
/// | `debug` | `→ GET https://api.example.com/todos?state=…` before each attempt, `← 200 GET https://api.example.com/todos 1.2 KiB in 18 ms` after it; at the end of a request the response cache took part in, what it did: `GET https://api.example.com/todos?state=…: cache hit` (``CacheEvent``) |
/// | `info` | a retry (with its wait) or a resend after a token refresh |
/// | `notice` | a cancelled request |
/// | `error` | a failed request, with its error described without secrets (and, when the ``RetryBudget`` stopped a retry the policy allowed, that it did) |
///
/// With ``includesPhases`` set, and the logger at `debug`, every phase of every request is written too, one record
/// per ``RequestEvent`` with its offset from the request's start (`#12 +0.7 ms request_head_sent`): the plugin is then
/// a ``RequestObserver`` of the requests it runs for. Without it, or at a higher level, requests make no events for
/// it and pay nothing for them.
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
    /// The header whose value records carry as ``NetworkLogRecord/requestID`` (`X-Request-ID`, as
    /// ``RequestIDPlugin`` sets it), unless `rules` hide it.
    public let requestIDHeaderName: String
    /// Whether every phase of every request is written at `debug` (``NetworkLogRecord/Event/phase``), from the
    /// request's events: `false` by default. Each line names the request by its number, the phase by its event, and
    /// never a path, a query or an error's text (the failure's own line describes the error, secrets hidden).
    public var includesPhases = false
    /// When each request began, for the offsets of its phase lines (with ``includesPhases`` only).
    private let phaseStarts = RequestLedger<ContinuousClock.Instant>()
    /// Each request's number and ID from `prepare` on, for the records of `didFinish` and `wasCancelled`; used only
    /// with a structured logger.
    private let ledger = RequestLedger<Correlation>()

    /// What the end of a request is told about its beginning.
    private struct Correlation: Sendable {
        var requestNumber: UInt64
        var requestID: String?
        var operationID: String?
    }

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
        self.init(
            logger: logger, includesCURL: includesCURL, curlSecrets: curlSecrets, rules: rules,
            requestIDHeaderName: "X-Request-ID")
    }

    /// Creates the plugin with the header records take their ``NetworkLogRecord/requestID`` from (the one a
    /// ``RequestIDPlugin`` with another `headerName` sets).
    public init(
        logger: NetworkLogger,
        includesCURL: Bool = false,
        curlSecrets: CURLSecrets = .hidden,
        rules: RedactionRules = .standard,
        requestIDHeaderName: String
    ) {
        self.logger = logger
        self.includesCURL = includesCURL
        self.curlSecrets = curlSecrets
        self.rules = rules
        self.requestIDHeaderName = requestIDHeaderName
    }

    /// A copy writing to `logger`, every other setting kept.
    public func with(logger: NetworkLogger) -> LoggingPlugin {
        var copy = LoggingPlugin(
            logger: logger, includesCURL: includesCURL, curlSecrets: curlSecrets, rules: rules,
            requestIDHeaderName: requestIDHeaderName)
        copy.includesPhases = includesPhases
        return copy
    }

    /// The number of requests whose number and ID this plugin (and its copies) holds: 0 once every request has
    /// ended.
    package var trackedRequests: Int { ledger.count }

    /// Runs after the other plugins, so it logs the request as they left it.
    public var priority: PluginPriority { .low }

    /// Notes the request's number and ID for the records written when it ends (with a structured logger only).
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        if logger.isStructured {
            let correlation = Correlation(
                requestNumber: context.requestNumber, requestID: requestID(of: request),
                operationID: request.operationID)
            ledger.open(context.requestNumber, correlation)
        }
        return request
    }

    /// Logs the attempt about to be sent.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        let sent = request
        let reattempt: String? =
            switch context.reason {
            case .initial: nil
            case .retry(let wait): "attempt \(context.attempt) after waiting \(milliseconds(wait))"
            case .refreshedCredential: "credential renewed after 401, sending again"
            case .requestedByPlugin: "a plugin asked for attempt \(context.attempt)"
            case .redirected(let status): "following the \(status) redirect"
            }
        if let reattempt {
            logger.log(.info) {
                record(.info, .reattempt, sent, context: context) { "\($0): \(reattempt)" }
            }
        }
        logger.log(.debug) { record(.debug, .attempt, sent, context: context) { "→ \($0)" } }
        if includesCURL {
            logger.logRegardlessOfLevel {
                var curl = record(.debug, .curl, sent, context: context) { _ in "" }
                curl.message = CURLCommand.render(sent, rules: rules, secrets: curlSecrets)
                return curl
            }
        }
    }

    /// Logs the response with its size and the attempt's duration.
    public func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {
        logger.log(.debug) {
            let size =
                response.body.map { Self.size($0.count) } ?? (context.isStreaming ? "streaming" : "body not read")
            let elapsed = ContinuousClock.now - context.startedAt
            let version = response.protocolVersion.map { " over \($0)" } ?? ""
            var received = record(.debug, .response, request, context: context) {
                "← \(response.statusCode) \($0) \(size) in \(milliseconds(elapsed))\(version)"
            }
            received.protocolVersion = response.protocolVersion
            received.statusCode = response.statusCode
            received.duration = elapsed
            return received
        }
    }

    /// Logs what the response cache did at `debug` level, when it took part, and a failure at `error` level.
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async {
        let correlation = logger.isStructured ? ledger.close(context.requestNumber) : nil
        if !metrics.cacheEvents.isEmpty {
            logger.log(.debug) {
                let events = metrics.cacheEvents
                var cache = record(.debug, .cache, request, correlation: correlation) {
                    "\($0): cache \(events.map(\.description).joined(separator: ", "))"
                }
                cache.requestNumber = context.requestNumber
                cache.cacheEvents = events
                return cache
            }
        }
        guard case .failure(let error) = result, !(error is CancellationError) else { return }
        logger.log(.error) {
            let description = LogRedaction.describe(error)
            let budget = metrics.retryBudgetExhausted ? Self.retryBudgetNote(request) : ""
            var failure = record(.error, .failure, request, correlation: correlation) {
                "\($0) failed after \(metrics.attempts) attempt(s) in \(milliseconds(metrics.duration)): \(description)"
                    + budget
            }
            failure.attempt = metrics.attempts
            failure.duration = metrics.duration
            failure.error = description
            failure.statusCode = (error as? HTTPError)?.statusCode ?? (error as? ServerError)?.statusCode
            return failure
        }
    }

    /// Why a failure its retry policy would have retried was not: without it, a reader of the log would look for a
    /// bug in the policy.
    private static func retryBudgetNote(_ request: TransportRequest) -> String {
        "; not retried: the retry budget of \(HTTPOrigin(request.head)) is spent (retries already make up the share"
            + " of recent requests to it that RetryBudget allows, 20 % by default)"
    }

    /// Logs at `error` level a request the engine refused while building it (a base URL, path, header or body it
    /// cannot send): nothing was sent and no other hook ran, so this is the one line its failure gets.
    ///
    /// `GET /users/1 was not sent: NetworkError: The base URL "localhost:8080" is invalid: it has no scheme; …`: the
    /// path is cut at its first `?` or `#`, the error described as ``didFinish(_:result:metrics:context:)`` describes it.
    package func logUnsent(method: HTTPRequestMethod, path: String, error: any Error) {
        guard !(error is CancellationError) else { return }
        logger.log(.error) {
            let description = LogRedaction.describe(error)
            var failure = NetworkLogRecord(
                level: .error, event: .failure,
                message: "\(method.rawValue) \(NetworkError.printablePath(path)) was not sent: \(description)",
                method: method)
            failure.error = description
            return failure
        }
    }

    /// Logs a cancellation at `notice` level.
    public func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics, context: PluginContext) async {
        logger.log(.notice) {
            let correlation = logger.isStructured ? ledger.entry(context.requestNumber) : nil
            var cancellation = record(.notice, .cancellation, request, correlation: correlation) { "\($0) cancelled" }
            cancellation.attempt = metrics.attempts
            cancellation.duration = metrics.duration
            return cancellation
        }
    }

    /// A record of `request`: `message` gets the `METHOD url` part every line begins with.
    private func record(
        _ level: NetworkLogger.Level, _ event: NetworkLogRecord.Event, _ request: TransportRequest,
        context: PluginContext, message: (String) -> String
    ) -> NetworkLogRecord {
        var record = record(level, event, request, correlation: nil, message: message)
        record.attempt = context.attempt
        record.requestNumber = context.requestNumber
        return record
    }

    private func record(
        _ level: NetworkLogger.Level, _ event: NetworkLogRecord.Event, _ request: TransportRequest,
        correlation: Correlation?, message: (String) -> String
    ) -> NetworkLogRecord {
        let target = LogRedaction.target(request.head, rules: rules.including(request.credentialFields))
        let operationID = request.operationID ?? correlation?.operationID
        // A line names the operation too, so that a generated client's calls read as its API does.
        let line = "\(request.method.rawValue) \(target)" + (operationID.map { " (\($0))" } ?? "")
        return NetworkLogRecord(
            level: level, event: event, message: message(line),
            method: request.method, url: target, requestNumber: correlation?.requestNumber,
            requestID: requestID(of: request) ?? correlation?.requestID,
            operationID: operationID)
    }

    /// The request ID header's value, unless the rules or the request's declared credentials hide that header.
    private func requestID(of request: TransportRequest) -> String? {
        let hidden =
            rules.hidesHeader(requestIDHeaderName) || request.credentialFields.containsHeader(requestIDHeaderName)
        return hidden ? nil : request.value(forHeader: requestIDHeaderName)
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

extension LoggingPlugin: RequestObserver {
    /// Writes `event` at `debug` as a ``NetworkLogRecord/Event/phase`` record, when ``includesPhases`` is set.
    public func observe(_ event: RequestEvent) {
        guard includesPhases else { return }
        let start: ContinuousClock.Instant?
        switch event.kind {
        case .callStart:
            phaseStarts.open(event.requestNumber, event.time)
            start = event.time
        case .callEnd, .callFailed: start = phaseStarts.close(event.requestNumber)
        default: start = phaseStarts.entry(event.requestNumber)
        }
        logger.log(.debug) {
            let offset = event.time - (start ?? event.time)
            var record = NetworkLogRecord(
                level: .debug, event: .phase,
                message: "#\(event.requestNumber) +\(milliseconds(offset)) \(Self.phase(event.kind))")
            record.requestNumber = event.requestNumber
            record.duration = offset
            return record
        }
    }

    /// The kind as a phase line says it: its description, but for the kinds that carry an error's text, which may
    /// quote a URL or a header, only their name and numbers.
    static func phase(_ kind: RequestEvent.Kind) -> String {
        switch kind {
        case .callFailed, .transparentRetry: kind.name
        case .attemptFailed(let attempt, _): "\(kind.name) \(attempt)"
        case .retryScheduled(let wait, _): "\(kind.name) \(wait)"
        default: kind.description
        }
    }
}

extension LoggingPlugin: SelectivePlugin {
    /// Only the hooks that can write at the logger's level: at the default (`error`) that is a failure's
    /// `didFinish` alone (and `willSend` when curl lines are asked for), and a request that succeeds makes no call
    /// to the plugin at all. A structured logger also takes `prepare` and every `didFinish`, to give the records of
    /// a request's end its number and ID; at `debug`, every `didFinish` writes what the cache did.
    package var hooks: PluginHooks {
        var hooks: PluginHooks = []
        if logger.isStructured, logger.isEnabled(.error) { hooks.formUnion([.prepare, .didSucceed, .didFail]) }
        // Retries and renewals are written at `info`, every attempt at `debug`. A requested curl line at any level.
        if logger.isEnabled(.info) || (includesCURL && logger.minimumLevel != nil) { hooks.insert(.willSend) }
        if logger.isEnabled(.debug) { hooks.formUnion([.didReceive, .didSucceed, .didFail]) }
        if logger.isEnabled(.notice) { hooks.insert(.wasCancelled) }
        if logger.isEnabled(.error) { hooks.insert(.didFail) }
        if includesPhases, logger.isEnabled(.debug) { hooks.insert(.observe) }
        return hooks
    }
}
