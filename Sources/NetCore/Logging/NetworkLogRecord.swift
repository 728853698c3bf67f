/// One thing ``LoggingPlugin`` says about a request, with the facts behind its line as separate fields: what a
/// structured logger (swift-log through NetLogging, your own sink) turns into metadata.
///
/// Every field is as safe to write as ``message``: the URL has its query values hidden as the plugin's
/// ``RedactionRules`` say, and those of the query items the request declares as credentials whatever they say, the
/// error is described by `LogRedaction.describe(_:)`, and no header value but the request ID is copied (and that
/// one only when neither the rules nor the request's credential fields hide its header).
public struct NetworkLogRecord: Sendable, Equatable {
    /// What happened.
    public enum Event: String, Sendable, Equatable, CaseIterable {
        /// An attempt is about to be sent (`debug`).
        case attempt
        /// Another attempt is about to be sent: a retry, a resend after a credential refresh, or one a plugin asked
        /// for (`info`).
        case reattempt
        /// An attempt got a response (`debug`).
        case response
        /// The request failed (`error`).
        case failure
        /// The caller cancelled the request (`notice`).
        case cancellation
        /// The attempt written as a `curl` command, because it was asked for (`debug`, whatever the level).
        case curl
        /// A message written with ``NetworkLogger/log(_:_:)``, with no request facts.
        case message
        /// What the response cache did for the request, written when it ends (`debug`): ``cacheEvents`` holds the
        /// events.
        case cache
        /// One phase of a request, as its ``RequestEvent`` told it (`debug`, with ``LoggingPlugin/includesPhases``):
        /// ``duration`` is the time since the request began.
        case phase
    }

    /// How important the record is.
    public var level: NetworkLogger.Level
    /// What happened.
    public var event: Event
    /// The line a plain sink gets: the same text, secrets hidden the same way.
    public var message: String
    /// The request's method.
    public var method: HTTPRequestMethod?
    /// The request's URL with query values hidden (`LogRedaction.target(_:rules:)`), declared credentials always.
    public var url: String?
    /// The response's status code, when one arrived.
    public var statusCode: Int?
    /// The HTTP version the response came over, when the transport can tell (``Event/response`` records).
    public var protocolVersion: HTTPProtocolVersion?
    /// The attempt, from 1.
    public var attempt: Int?
    /// How long the attempt (for ``Event/response``) or the request (for ``Event/failure`` and
    /// ``Event/cancellation``) took.
    public var duration: Duration?
    /// NetKit's number for the request, unique within the process (``PluginContext/requestNumber``).
    public var requestNumber: UInt64?
    /// The request's `X-Request-ID` (or the header ``LoggingPlugin/requestIDHeaderName`` names), when it has one.
    public var requestID: String?
    /// The operation the request performs (``TransportRequest/operationID``), when it names one.
    public var operationID: String?
    /// The error a failed request ended with, described without secrets.
    public var error: String?
    /// What the response cache did for the request (``RequestMetrics/cacheEvents``), on a ``Event/cache`` record;
    /// empty on the others.
    public var cacheEvents: [CacheEvent] = []

    /// Creates a record; only the level, event and message are required.
    public init(
        level: NetworkLogger.Level,
        event: Event,
        message: String,
        method: HTTPRequestMethod? = nil,
        url: String? = nil,
        statusCode: Int? = nil,
        attempt: Int? = nil,
        duration: Duration? = nil,
        requestNumber: UInt64? = nil,
        requestID: String? = nil,
        operationID: String? = nil,
        error: String? = nil
    ) {
        self.level = level
        self.event = event
        self.message = message
        self.method = method
        self.url = url
        self.statusCode = statusCode
        self.attempt = attempt
        self.duration = duration
        self.requestNumber = requestNumber
        self.requestID = requestID
        self.operationID = operationID
        self.error = error
    }
}
