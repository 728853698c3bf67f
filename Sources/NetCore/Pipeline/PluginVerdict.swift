/// What ``Plugin/verify(_:for:context:)`` decides about a response.
public enum PluginVerdict: Sendable, Equatable {
    /// The response stands; NetKit goes on to judge its status.
    case accept
    /// Send the request again at once (it goes through the held line, the credential and every plugin again).
    ///
    /// Honoured for replayable requests only and at most ``maximumRetries`` times per request; past that the
    /// request fails with ``PluginRetryLimitExceeded``. It does not use the request's `RetryPolicy`.
    case retry

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
