/// A TLS protocol version, for ``TLSSettings/minimumVersion``.
public enum TLSVersion: String, Sendable, Hashable {
    /// TLS 1.2 (RFC 5246).
    case tls12 = "TLS 1.2"
    /// TLS 1.3 (RFC 8446).
    case tls13 = "TLS 1.3"
}
