/// A connection setting the transport cannot apply: the request failed before anything was sent, rather than going
/// out with less than was asked for (an unpinned connection, the system's roots instead of a private CA's, no proxy).
///
/// Its text names the setting, the transport, why, and what would apply it:
/// "URLSessionTransport on Linux cannot apply the certificate pins setting: FoundationNetworking never lets a session
/// evaluate a server's certificate (it raises no server-trust challenge on Linux). Nothing was sent.
/// AsyncHTTPClientTransport cannot pin either: trust only your own CA with tls.trustedRoots = .only([ca]) on it, or
/// pin with a server-trust delegate on Apple platforms."
///
/// Never retried: the same transport refuses the same setting every time.
public struct UnsupportedConnectionSettingError: Error, NonRetriableError, Sendable, Equatable, CustomStringConvertible
{
    /// A connection setting, as this error names it.
    public enum Setting: String, Sendable, Hashable {
        /// ``TLSSettings/trustedRoots``.
        case trustedRoots = "trusted roots"
        /// ``TLSSettings/clientIdentity``.
        case clientIdentity = "client identity"
        /// ``TLSSettings/minimumVersion``.
        case minimumTLSVersion = "minimum TLS version"
        /// ``TLSSettings/pins``.
        case certificatePins = "certificate pins"
        /// ``ConnectionSettings/proxy``.
        case proxy = "proxy"
        /// ``ConnectionSettings/httpVersion``.
        case httpVersion = "HTTP version"
    }

    /// The setting refused.
    public let setting: Setting
    /// The transport that refused it, as the text names it ("URLSessionTransport on Linux").
    public let transport: String
    /// Why it cannot apply it.
    public let reason: String
    /// What would apply it: another transport, another setting.
    public let alternative: String

    /// Creates an error.
    public init(_ setting: Setting, transport: String, reason: String, alternative: String) {
        self.setting = setting
        self.transport = transport
        self.reason = reason
        self.alternative = alternative
    }

    /// "<transport> cannot apply the <setting>: <reason>. Nothing was sent. <alternative>"
    public var description: String {
        "\(transport) cannot apply the \(setting.rawValue) setting: \(reason). Nothing was sent. \(alternative)"
    }
}
