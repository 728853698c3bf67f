#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A ``URLSessionTransport`` borrowed a session whose delegate may evaluate server trust (pin certificates), where
/// the platform never asks it to: on Linux, FoundationNetworking raises no server-trust challenge. The transport
/// refuses every request before sending anything, rather than send it with the pinning silently skipped.
///
/// If the delegate does not pin certificates, adopt ``SystemTrustDelegate`` on it. To pin certificates on Linux, use
/// `AsyncHTTPClientTransport` (module NetAsyncHTTPClient, package trait `AsyncHTTPClient`) with a NIOSSL
/// `TLSConfiguration` that trusts only your certificates. Never retried.
public struct UnsupportedServerTrust: Error, NonRetriableError, Sendable, Equatable, CustomStringConvertible {
    /// The type of the borrowed session's delegate.
    public let delegateType: String
    /// The host the refused request was for.
    public let host: String

    /// Creates the error for a delegate of type `delegateType` and a request to `host`.
    public init(delegateType: String, host: String) {
        self.delegateType = delegateType
        self.host = host
    }

    /// What was refused, why, and what to do.
    public var description: String {
        "URLSessionTransport refused to send a request to \(host): it borrowed a URLSession whose delegate "
            + "(\(delegateType)) may pin certificates through server-trust challenges, but FoundationNetworking on "
            + "Linux never raises them, so the pinning would be skipped and any certificate the system trusts "
            + "accepted. If the delegate does not rely on server trust, adopt SystemTrustDelegate on it; to pin "
            + "certificates on Linux, use AsyncHTTPClientTransport (trait AsyncHTTPClient) with a NIOSSL "
            + "TLSConfiguration."
    }
}

extension UnsupportedServerTrust: LocalizedError {
    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}
