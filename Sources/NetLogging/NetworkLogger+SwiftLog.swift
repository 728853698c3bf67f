#if Logging
import Logging
import NetCore

extension NetworkLogger {
    /// A logger that writes NetKit's records to a swift-log `Logger`, each with the request's facts as metadata.
    ///
    /// ```swift
    /// import Logging
    /// import NetCore
    /// import NetLogging
    ///
    /// let logger = Logger(label: "com.example.api")
    /// let logging = LoggingPlugin(logger: NetworkLogger(swiftLog: logger))
    /// ```
    ///
    /// The `Logger`'s own `logLevel` decides what NetKit writes (read once, here): `trace` and `debug` let every
    /// attempt and response through, `info` retries and refreshes, `notice` cancellations, `warning` and `error`
    /// failures only, `critical` nothing. Levels map one to one (`NetworkLogger.Level.swiftLogLevel`); a `curl`
    /// line asked for with `LoggingPlugin(includesCURL: true)` is written at `debug`, or at the `Logger`'s level
    /// when that is higher, so that asking for it is enough.
    ///
    /// The message is the line NetKit writes anywhere else; the metadata (see
    /// `NetworkLogRecord.swiftLogMetadata`) uses OpenTelemetry's names where they exist:
    ///
    /// | key | value | when |
    /// | --- | --- | --- |
    /// | `http.request.method` | `GET` | always but for plain messages |
    /// | `url.full` | `https://api.example.com/v1/todos?state=…`, query values hidden | always but for plain messages |
    /// | `http.response.status_code` | `200` | a response arrived, or a failure had a status |
    /// | `netkit.event` | `attempt`, `reattempt`, `response`, `failure`, `cancellation`, `curl`, `message`, `cache`, `phase` | always |
    /// | `netkit.attempt` | `1`, `2`… (the attempts sent, for a failure or cancellation) | per attempt |
    /// | `netkit.duration_ms` | `18.4`: the attempt's (response) or the request's (failure, cancellation) | timed records |
    /// | `netkit.request_number` | NetKit's number for the request, unique in the process | request records |
    /// | `netkit.request_id` | the `X-Request-ID` header's value (see `RequestIDPlugin`) | when the request has one |
    /// | `netkit.operation_id` | the OpenAPI `operationId` (`TransportRequest.operationID`) | when set |
    /// | `netkit.error` | the error, described without URLs, headers or query values | failures |
    /// | `netkit.cache_events` | `["miss", "not stored: no-store"]`: what the response cache did (`CacheEvent`) | `cache` |
    ///
    /// Secrets are hidden exactly as in NetKit's other log lines: `Authorization`, `Cookie` and other secret
    /// headers are never copied, query values are hidden as the plugin's `RedactionRules` say.
    ///
    /// - Parameters:
    ///   - logger: Where records go; its label becomes the `subsystem`.
    ///   - category: The `category` (NetKit's own; not sent to swift-log).
    public init(swiftLog logger: Logger, category: String = "network") {
        let target = logger
        self.init(
            subsystem: logger.label, category: category, minimumLevel: Self.minimumLevel(for: logger.logLevel),
            recordSink: { record in
                let level =
                    record.event == .curl
                    ? max(record.level.swiftLogLevel, target.logLevel) : record.level.swiftLogLevel
                target.log(
                    level: level, Logger.Message(stringLiteral: record.message), metadata: record.swiftLogMetadata,
                    source: "NetKit")
            })
    }

    /// The least important of NetKit's levels a swift-log `Logger` at `level` lets through; `nil` for `critical`,
    /// which none reaches.
    static func minimumLevel(for level: Logger.Level) -> Level? {
        switch level {
        case .trace, .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning, .error: .error
        case .critical: nil
        }
    }
}
#endif
