#if AsyncHTTPClient
import NetCore
import NetKitLock
import NIOSSL

/// The BoringSSL configurations a transport made from NetKit's TLS settings, kept by the settings they came from: a
/// request with the same settings as the last does not have its certificates and key read again. At most ``limit``
/// are kept; past it the store starts afresh.
final class TLSConfigurations: Sendable {
    static let limit = 16
    private let made = Lock<[TLSSettings: TLSConfiguration]>([:])

    /// The configuration of a request with `tls` (see `AsyncHTTPClientTransport.tlsConfiguration(for:)`); `nil` for
    /// the transport's defaults.
    func configuration(for tls: TLSSettings) throws -> TLSConfiguration? {
        if tls.isDefault { return nil }
        if let known = made.withLock({ $0[tls] }) { return known }
        let configuration = try AsyncHTTPClientTransport.tlsConfiguration(for: tls)
        made.withLock { made in
            if made.count >= Self.limit { made.removeAll() }
            made[tls] = configuration
        }
        return configuration
    }
}
#endif
