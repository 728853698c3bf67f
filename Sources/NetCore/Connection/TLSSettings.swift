/// How TLS connections are made: whom to trust, what to present, how old a protocol to accept, which keys to pin.
///
/// Every setting is the transport's default until set; a transport that cannot apply one refuses the request with
/// ``UnsupportedConnectionSettingError`` before anything is sent, never quietly connecting with less (see
/// Docs/Security.md for what each transport honours).
///
/// ```swift
/// var tls = TLSSettings()
/// tls.trustedRoots = .only([try TLSCertificate(pem: internalCA)])
/// tls.clientIdentity = try ClientIdentity(certificateChainPEM: certificate, privateKeyPEM: key)
/// tls.minimumVersion = .tls13
/// configuration.connection.tls = tls
/// ```
public struct TLSSettings: Sendable, Hashable, CustomStringConvertible {
    /// The certificate authorities a server's chain must lead to; the system's by default.
    public var trustedRoots: TrustedRoots
    /// The certificate presented to a server that asks for one (mutual TLS); none by default.
    public var clientIdentity: ClientIdentity?
    /// The oldest TLS version accepted; `nil` (the default): the transport's TLS library decides.
    public var minimumVersion: TLSVersion?
    /// SPKI pins, per host pattern: a server whose chain holds none of its host's pinned keys is refused. None by
    /// default.
    public var pins: [CertificatePin]

    /// Settings with every value at the transport's default unless named here.
    public init(
        trustedRoots: TrustedRoots = .system,
        clientIdentity: ClientIdentity? = nil,
        minimumVersion: TLSVersion? = nil,
        pins: [CertificatePin] = []
    ) {
        self.trustedRoots = trustedRoots
        self.clientIdentity = clientIdentity
        self.minimumVersion = minimumVersion
        self.pins = pins
    }

    /// Whether every setting is the transport's default.
    package var isDefault: Bool {
        trustedRoots == .system && clientIdentity == nil && minimumVersion == nil && pins.isEmpty
    }

    /// The settings that differ from the default, in words; never a private key.
    public var description: String {
        var parts: [String] = []
        switch trustedRoots {
        case .system: break
        case .systemAnd(let roots): parts.append("trusted roots: the system's and \(roots.count) more")
        case .only(let roots): parts.append("trusted roots: \(roots.count) only")
        }
        if let clientIdentity { parts.append(clientIdentity.description) }
        if let minimumVersion { parts.append("minimum \(minimumVersion.rawValue)") }
        if !pins.isEmpty { parts.append("pins for \(pins.map(\.host).joined(separator: ", "))") }
        return parts.isEmpty ? "TLS: the transport's defaults" : "TLS: " + parts.joined(separator: "; ")
    }
}
