#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A URL's origin (RFC 6454): scheme, host and port, the port a scheme implies filled in.
///
/// Compared as bytes after ASCII lowercasing of scheme and host: `HTTPS://API.example.com` and
/// `https://api.example.com:443` are one origin; a host spelled with another Unicode form is another.
public struct HTTPOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased: `https`.
    public let scheme: String
    /// The host, ASCII-lowercased, without the brackets of an IPv6 address.
    public let host: String
    /// The port, the scheme's default when the URL names none; `nil` for a scheme without a default.
    public let port: Int?

    /// The origin of `url`; `nil` for a URL without a scheme or host.
    public init?(_ url: URL) {
        guard let scheme = url.scheme, let host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
        self.init(scheme: scheme, host: host, port: url.port)
    }

    /// The origin a request head is sent to.
    public init(_ head: HTTPRequestHead) {
        self.init(scheme: head.scheme, authority: head.authority)
    }

    /// The origin of a checked authority (a head's) under `scheme`.
    package init(scheme: String, authority: String) {
        self.init(
            scheme: scheme, host: HTTPRequestHead.host(ofAuthority: authority),
            port: HTTPRequestHead.port(ofAuthority: authority))
    }

    /// An origin from its parts.
    public init(scheme: String, host: String, port: Int?) {
        let scheme = HeaderValidation.lowercased(scheme)
        var host = HeaderValidation.lowercased(host)
        if host.utf8.first == UInt8(ascii: "["), host.utf8.last == UInt8(ascii: "]") {
            host = String(host.dropFirst().dropLast())
        }
        self.scheme = scheme
        self.host = host
        self.port = port ?? Self.defaultPort(of: scheme)
    }

    /// Whether the origin is reached over TLS (`https`, `wss`).
    public var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// `https://api.example.com` (the port only when it is not the scheme's default).
    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        guard let port, port != Self.defaultPort(of: scheme) else { return "\(scheme)://\(host)" }
        return "\(scheme)://\(host):\(port)"
    }

    private static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }
}
