#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SHA-256 member of an RFC 9530 `Repr-Digest` or `Content-Digest` field: `sha-256=:<base64>:`.
///
/// The field is a structured-field dictionary (RFC 9651); only the `sha-256` member is read, since it is the one
/// algorithm NetKit computes. Other members (`sha-512`, and the insecure ones RFC 9530 deprecates) are skipped, and
/// a field without `sha-256` gives `nil`: nothing to check rather than a check that cannot be made.
enum DigestFields {
    /// The 32-byte SHA-256 digest named in `value`, or `nil` when it names none or names a malformed one.
    static func sha256(in value: String) -> [UInt8]? {
        for member in value.split(separator: ",") {
            let member = member.trimmingCharacters(in: .whitespaces)
            guard let equals = member.firstIndex(of: "=") else { continue }
            // Keys are lowercase tokens (RFC 9651 §3.2): compared byte for byte.
            guard member[..<equals].utf8.elementsEqual("sha-256".utf8) else { continue }
            var item = member[member.index(after: equals)...]
            // A byte sequence is `:base64:`; parameters after `;` are ignored.
            if let semicolon = item.firstIndex(of: ";") { item = item[..<semicolon] }
            guard item.count >= 2, item.first == ":", item.last == ":" else { return nil }
            guard let digest = Data(base64Encoded: String(item.dropFirst().dropLast())), digest.count == 32 else {
                return nil
            }
            return Array(digest)
        }
        return nil
    }
}
