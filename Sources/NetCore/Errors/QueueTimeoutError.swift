#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request that waited longer than ``RequestExecutor/Configuration/queueTimeout`` for one of its host's request
/// slots (``RequestExecutor/Configuration/maximumRequestsPerHost``): it failed before anything was sent, so the server
/// never saw it.
///
/// It says the client was busy, not that the server was slow: the host already had as many requests in flight as
/// the limit allows, and none of them finished in time to make room. The default ``RetryPolicy`` never retries it
/// (a retry would only join the same line again).
///
/// ```swift
/// catch let error as QueueTimeoutError {
///     // "Waited 2 s for one of the 8 request slots of api.example.com:443 (…); the server was never asked. …"
///     print(error)
/// }
/// ```
public struct QueueTimeoutError: Error, NonRetriableError, Sendable, Equatable, CustomStringConvertible {
    /// The origin whose slots were all held: scheme, host and port.
    public let origin: HTTPOrigin
    /// The most requests to the origin allowed in flight at once: the configuration's
    /// ``RequestExecutor/Configuration/maximumRequestsPerHost``.
    public let limit: Int
    /// How long the request waited for a slot before it gave up.
    public let waited: Duration

    /// Creates an error (NetKit makes it; a test of your own error handling can too).
    public init(origin: HTTPOrigin, limit: Int, waited: Duration) {
        self.origin = origin
        self.limit = limit
        self.waited = waited
    }

    /// "Waited 2 s for one of the 8 request slots of api.example.com:443
    /// (RequestExecutor.Configuration.maximumRequestsPerHost); the server was never asked. Raise the limit or the
    /// queueTimeout, or send fewer requests at once."
    /// With a limit of 1: "Waited 100 ms for the only request slot of api.example.com:443
    /// (RequestExecutor.Configuration.maximumRequestsPerHost is 1); …"
    public var description: String {
        let setting = "RequestExecutor.Configuration.maximumRequestsPerHost"
        let slots =
            limit == 1
            ? "the only request slot of \(hostAndPort) (\(setting) is 1)"
            : "one of the \(limit) request slots of \(hostAndPort) (\(setting))"
        return "Waited \(Self.text(waited)) for \(slots); the server was never asked. "
            + "Raise the limit or the queueTimeout, or send fewer requests at once."
    }

    /// `api.example.com:443`, `[::1]:8080`: the host as a request names it, with the port always written, since
    /// slots are counted per port too.
    private var hostAndPort: String {
        let host = HeaderValidation.printable(origin.host.contains(":") ? "[\(origin.host)]" : origin.host)
        return origin.port.map { "\(host):\($0)" } ?? host
    }

    /// Whole milliseconds under a second (`100 ms`), seconds with at most one decimal above (`2 s`, `2.5 s`).
    private static func text(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if milliseconds < 999.5 { return "\(Int(milliseconds.rounded())) ms" }
        let tenths = Int((milliseconds / 100).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}

extension QueueTimeoutError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}
