/// A client certificate and its private key, presented to servers that ask for one (mutual TLS).
///
/// The key is a credential: no description, mirror or log line of NetKit's ever shows it.
///
/// ```swift
/// let identity = try ClientIdentity(certificateChainPEM: certificateText, privateKeyPEM: keyText)
/// configuration.connection.tls.clientIdentity = identity
/// ```
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The client's certificate first, then any intermediate certificates the server needs to reach its root.
    public let certificateChain: [TLSCertificate]
    /// The private key, as the PEM text given (`PRIVATE KEY`, `RSA PRIVATE KEY` or `EC PRIVATE KEY`): transports
    /// hand it to their TLS library as it is.
    package let privateKeyPEM: String

    /// An identity from PEM text: the certificate chain (leaf first) and an unencrypted private key.
    /// - Throws: ``ConnectionSettingError`` when the chain holds no certificate, or the key text holds no private key
    ///   block or an encrypted one. The message never quotes the key.
    public init(certificateChainPEM: String, privateKeyPEM: String) throws {
        let chain = try TLSCertificate.chain(pem: certificateChainPEM)
        let keys = try PEMBlock.all(in: privateKeyPEM).filter { $0.label.hasSuffix("PRIVATE KEY") }
        guard let key = keys.first, keys.count == 1 else {
            throw ConnectionSettingError(
                setting: "client identity",
                reason: keys.isEmpty
                    ? "the key text holds no -----BEGIN PRIVATE KEY----- block"
                    : "the key text holds \(keys.count) private keys; give the one that goes with the certificate")
        }
        guard key.label != "ENCRYPTED PRIVATE KEY" else {
            throw ConnectionSettingError(
                setting: "client identity",
                reason: "the private key is encrypted; decrypt it first (openssl pkey -in key.pem -out plain.pem)")
        }
        self.certificateChain = chain
        self.privateKeyPEM = privateKeyPEM
    }

    /// "client identity (N certificates, private key hidden)".
    public var description: String {
        "client identity (\(certificateChain.count) certificate\(certificateChain.count == 1 ? "" : "s"), private key hidden)"
    }

    /// The chain's length alone: `dump` and debuggers never see the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["certificates": certificateChain.count, "privateKey": "REDACTED"])
    }
}
