#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `-----BEGIN X-----` … `-----END X-----` block of PEM text (RFC 7468): its label and the DER bytes it carries.
package struct PEMBlock: Sendable, Hashable {
    /// `CERTIFICATE`, `PRIVATE KEY`, `EC PRIVATE KEY`, …
    package let label: String
    /// The decoded body.
    package let der: [UInt8]

    package init(label: String, der: [UInt8]) {
        self.label = label
        self.der = der
    }

    /// Every block of `text`, in order; text between blocks is ignored, as RFC 7468 allows.
    /// - Throws: ``ConnectionSettingError`` for a block that is not closed, closed with another label, or whose body
    ///   is not base64. The message never quotes the body (it may be a private key).
    package static func all(in text: String) throws -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var label: String?
        var body = ""
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let open = Self.label(of: line, marker: "BEGIN") {
                guard label == nil else {
                    throw ConnectionSettingError(setting: "PEM text", reason: "a \(open) block begins inside another")
                }
                label = open
                body = ""
            } else if let close = Self.label(of: line, marker: "END") {
                guard let open = label, open == close else {
                    throw ConnectionSettingError(
                        setting: "PEM text", reason: "an END \(close) line without its BEGIN line")
                }
                guard let data = Data(base64Encoded: body), !data.isEmpty else {
                    throw ConnectionSettingError(setting: "PEM text", reason: "the \(open) block is not base64")
                }
                blocks.append(PEMBlock(label: open, der: Array(data)))
                label = nil
            } else if label != nil {
                body += line
            }
        }
        if let open = label {
            throw ConnectionSettingError(setting: "PEM text", reason: "the \(open) block has no END line")
        }
        return blocks
    }

    /// The block as text, 64 base64 characters to a line.
    package var text: String {
        let encoded = Data(der).base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 64, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[start..<end]))
            start = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `X` of a `-----BEGIN X-----` (or END) line.
    private static func label(of line: String, marker: String) -> String? {
        let prefix = "-----\(marker) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count > prefix.count + 5 else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(5))
    }
}
