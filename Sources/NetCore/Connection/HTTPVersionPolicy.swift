/// Which HTTP versions a connection may speak.
public enum HTTPVersionPolicy: Sendable, Hashable {
    /// HTTP/2 where TLS negotiates it (ALPN), HTTP/1.1 otherwise: the transport's choice.
    case automatic
    /// HTTP/1.1 only, even where the server offers HTTP/2: for servers and proxies whose HTTP/2 misbehaves, or to
    /// compare the two.
    case http1Only
}
