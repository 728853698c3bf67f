/// The HTTP version a response came over: what ALPN negotiated over TLS, HTTP/1.1 otherwise.
public enum HTTPProtocolVersion: String, Sendable, Hashable, CustomStringConvertible {
    /// HTTP/1.0.
    case http10 = "HTTP/1.0"
    /// HTTP/1.1.
    case http11 = "HTTP/1.1"
    /// HTTP/2 (RFC 9113).
    case http2 = "HTTP/2"
    /// HTTP/3 (RFC 9114).
    case http3 = "HTTP/3"

    /// The version from its major and minor numbers; `nil` for one NetKit does not know.
    public init?(major: Int, minor: Int) {
        switch (major, minor) {
        case (1, 0): self = .http10
        case (1, 1): self = .http11
        case (2, _): self = .http2
        case (3, _): self = .http3
        default: return nil
        }
    }

    /// "HTTP/1.1", "HTTP/2".
    public var description: String { rawValue }
}
