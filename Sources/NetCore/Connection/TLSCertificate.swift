#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An X.509 certificate, as the DER bytes a PEM block carries: a trusted root, or a link of a client certificate's
/// chain.
///
/// ```swift
/// let root = try TLSCertificate(pem: String(decoding: try Data(contentsOf: caFile), as: UTF8.self))
/// let chain = try TLSCertificate.chain(pem: bundleText)    // every certificate of a bundle, in order
/// ```
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER bytes.
    public let der: [UInt8]

    /// The certificate of the one `CERTIFICATE` block in `pem`.
    /// - Throws: ``ConnectionSettingError`` when the text holds no `CERTIFICATE` block, more than one, or one whose
    ///   body is not base64.
    public init(pem: String) throws {
        let chain = try Self.chain(pem: pem)
        guard chain.count == 1 else {
            throw ConnectionSettingError(
                setting: "certificate",
                reason: "the text holds \(chain.count) certificates; use TLSCertificate.chain(pem:) for a bundle")
        }
        self = chain[0]
    }

    /// A certificate from its DER bytes, taken as they are (a server checks them during the handshake).
    public init(der: [UInt8]) {
        self.der = der
    }

    /// Every `CERTIFICATE` block of `pem`, in order; other blocks (a key, parameters) are skipped.
    /// - Throws: ``ConnectionSettingError`` when there is none, or a block is not closed or not base64.
    public static func chain(pem: String) throws -> [TLSCertificate] {
        let blocks = try PEMBlock.all(in: pem)
        let certificates = blocks.filter { $0.label == "CERTIFICATE" }.map { TLSCertificate(der: $0.der) }
        guard !certificates.isEmpty else {
            throw ConnectionSettingError(
                setting: "certificate", reason: "no -----BEGIN CERTIFICATE----- block in the text given")
        }
        return certificates
    }

    /// The certificate as a PEM block, 64 base64 characters to a line.
    package var pem: String {
        PEMBlock(label: "CERTIFICATE", der: der).text
    }

    /// "certificate (N bytes)": a certificate is public, but a log line needs no more.
    public var description: String { "certificate (\(der.count) bytes)" }
}
