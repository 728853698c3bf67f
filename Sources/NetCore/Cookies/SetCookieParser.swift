#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a `Set-Cookie` field value as RFC 6265 §5.2 does: `name=value` up to the first `;`, then attributes
/// whose names are matched in any case; an attribute with a value it cannot use is ignored, the last valid one of
/// each name counts.
///
/// The whole field is ignored (`nil`) when it has no `=` before its first `;`, an empty name, control characters
/// in the name or value (RFC 6265bis §5.6), or a name and value longer than 4096 bytes together. An attribute value
/// longer than 1024 bytes is ignored.
package enum SetCookieParser {
    /// The most bytes of name and value together (RFC 6265bis §5.6).
    package static let maximumNameValueBytes = 4096
    /// The most bytes of an attribute's value (RFC 6265bis §5.6).
    package static let maximumAttributeValueBytes = 1024

    /// The cookie `field` sets, or `nil` when it must be ignored.
    package static func parse(_ field: String) -> SetCookie? {
        var parts = field.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maximumNameValueBytes,
            !name.utf8.contains(where: isControl), !value.utf8.contains(where: isControl)
        else { return nil }
        var cookie = SetCookie(name: String(name), value: String(value))
        for attribute in parts {
            let (attributeName, attributeValue): (Substring, Substring)
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = trimmed(attribute[..<equals])
                attributeValue = trimmed(attribute[attribute.index(after: equals)...])
            } else {
                attributeName = trimmed(attribute)
                attributeValue = ""
            }
            guard attributeValue.utf8.count <= maximumAttributeValueBytes else { continue }
            apply(attributeName.lowercased(), String(attributeValue), to: &cookie)
        }
        return cookie
    }

    private static func apply(_ name: String, _ value: String, to cookie: inout SetCookie) {
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = maxAge(value) { cookie.maxAge = seconds }
        case "domain":
            guard !value.isEmpty else { return }
            let domain = value.hasPrefix(".") ? String(value.dropFirst()) : value
            if !domain.isEmpty { cookie.domain = CookieMatching.canonical(domain) }
        case "path":
            cookie.path = value.hasPrefix("/") ? value : nil
        case "secure":
            cookie.isSecure = true
        case "httponly":
            cookie.isHTTPOnly = true
        case "samesite":
            switch value.lowercased() {
            case "strict": cookie.sameSite = .strict
            case "lax": cookie.sameSite = .lax
            case "none": cookie.sameSite = .noRestriction
            default: break
            }
        default:
            break
        }
    }

    /// `Max-Age`: an optional `-` and digits; anything else is ignored. Past `Int`'s range it saturates.
    private static func maxAge(_ value: String) -> Int? {
        var digits = Substring(value)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        guard let number = Int(digits) else { return negative ? Int.min : Int.max }
        return negative ? -number : number
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }

    /// Control characters other than tab (RFC 6265bis §5.6: `%x00-08 / %x0A-1F / %x7F` abort).
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
