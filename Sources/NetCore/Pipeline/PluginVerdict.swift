/// What ``Plugin/verify(_:for:context:)`` decides about a response: accept it, send the request again, or go on
/// with another response.
public enum PluginVerdict: Sendable, Equatable {
    /// The response stands; NetKit goes on to judge its status.
    case accept
    /// Send the request again at once (it goes through the held line, the credential and every plugin again).
    ///
    /// Honoured for replayable requests only and at most ``maximumRetries`` times per request; past that the
    /// request fails with ``PluginRetryLimitExceeded``. It does not use the request's `RetryPolicy`.
    case retry
    /// Go on with this response instead of the server's (SmartNetwork's StopTheLine `.replace`): the plugins
    /// after this one judge it, then NetKit checks its status and decodes its body as if the server had sent it
    /// (a replaced 500 may decode as a 200; a replaced 200 may fail as an ``HTTPError``). The server's response
    /// is dropped. For `send`, a replacement without a body decodes as an empty body; for `stream`, its body is
    /// what the caller reads.
    ///
    /// ```swift
    /// struct Maintenance: Plugin {
    ///     func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws -> PluginVerdict {
    ///         guard response.statusCode == 503 else { return .accept }
    ///         return .replace(ReceivedResponse(head: HTTPResponseHead(statusCode: 200), body: Data(#"{"items":[]}"#.utf8)))
    ///     }
    /// }
    /// ```
    case replace(ReceivedResponse)

    /// The most attempts plugins may ask for per request.
    public static let maximumRetries = 3
}

/// Plugins asked for more than ``PluginVerdict/maximumRetries`` attempts of one request.
public struct PluginRetryLimitExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status of the last response a plugin asked to retry.
    public let statusCode: Int

    /// Creates the error.
    public init(statusCode: Int) {
        self.statusCode = statusCode
    }

    /// A sentence naming the failure.
    public var description: String {
        "Plugins asked to retry more than \(PluginVerdict.maximumRetries) times (last status \(statusCode))."
    }
}
