#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The user name and password a proxy asks for: sent as `Proxy-Authorization: Basic …` to an HTTP proxy, or as
/// SOCKS5 username/password authentication (RFC 1929).
///
/// Its `description`, `String(reflecting:)` and `dump` show the user name and `REDACTED`, never the password, so a
/// proxy setting can be logged or printed in a test failure without leaking it.
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The user name, percent-decoded when it came from a proxy URL.
    public var username: String
    /// The password, percent-decoded when it came from a proxy URL; empty when the URL gave only a user name.
    public var password: String

    /// Credentials for a proxy.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The `Proxy-Authorization` value, `Basic ` and the Base64 of `username:password` in UTF-8 (RFC 7617), which
    /// is what curl and Go's net/http send for credentials in a proxy URL.
    package var basicAuthorization: String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// `alice:REDACTED`.
    public var description: String { "\(username):REDACTED" }

    /// The user name and `REDACTED` in place of the password, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": "REDACTED"], displayStyle: .struct)
    }
}
