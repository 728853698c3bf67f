/// A connection setting that cannot be used as given: a certificate that is not PEM, a pin without a backup, a proxy
/// address that is not one. Thrown when the setting is made, or (for the proxy environment) when a request reads it,
/// before anything is sent.
///
/// ```swift
/// do { _ = try TLSCertificate(pem: text) } catch let error as ConnectionSettingError { print(error) }
/// // "Invalid trusted root certificate: no -----BEGIN CERTIFICATE----- block in the text given"
/// ```
public struct ConnectionSettingError: Error, NonRetriableError, Sendable, Equatable, CustomStringConvertible {
    /// The setting, in words: "trusted root certificate", "certificate pin for api.example.com", "HTTPS_PROXY".
    public let setting: String
    /// What is wrong with it and what would be right. It never holds a secret (a private key, a proxy password).
    public let reason: String

    /// Creates an error about `setting`.
    public init(setting: String, reason: String) {
        self.setting = setting
        self.reason = reason
    }

    /// "Invalid <setting>: <reason>".
    public var description: String { "Invalid \(setting): \(reason)" }
}
