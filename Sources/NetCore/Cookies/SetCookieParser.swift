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
    static let maximumNameValueBytes = 4096
    /// The most bytes of an attribute's value (RFC 6265bis §5.6).
    static let maximumAttributeValueBytes = 1024

    /// The cookie `field` sets, or `nil` when it must be ignored.
    ///
    /// The field is read as bytes: it is split at the bytes `;` and `=` and trimmed of spaces and tabs, whatever
    /// follows them (a combining mark after `;` does not hide it, as it would from `String`'s `Character`s).
    package static func parse(_ field: String) -> SetCookie? {
        let bytes = Array(field.utf8)
        var parts = bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[(equals + 1)...])
        guard !name.isEmpty, name.count + value.count <= maximumNameValueBytes,
            !name.contains(where: isControl), !value.contains(where: isControl)
        else { return nil }
        var cookie = SetCookie(name: text(name), value: text(value))
        for attribute in parts {
            let (attributeName, attributeValue): (ArraySlice<UInt8>, ArraySlice<UInt8>)
            if let equals = attribute.firstIndex(of: UInt8(ascii: "=")) {
                attributeName = trimmed(attribute[..<equals])
                attributeValue = trimmed(attribute[(equals + 1)...])
            } else {
                attributeName = trimmed(attribute)
                attributeValue = []
            }
            guard attributeValue.count <= maximumAttributeValueBytes else { continue }
            apply(text(attributeName), text(attributeValue), to: &cookie)
        }
        return cookie
    }

    private static func apply(_ name: String, _ value: String, to cookie: inout SetCookie) {
        let matches: (String, String) -> Bool = { CookieMatching.equalsIgnoringCase($0, $1) }
        if matches(name, "expires") {
            if let date = CookieDate.parse(value) { cookie.expires = date }
        } else if matches(name, "max-age") {
            if let seconds = maxAge(value) { cookie.maxAge = seconds }
        } else if matches(name, "domain") {
            // RFC 6265bis §5.6.3: an empty value is ignored; one leading "." is dropped.
            var domain = value.utf8[...]
            if domain.first == UInt8(ascii: ".") { domain = domain.dropFirst() }
            if !domain.isEmpty { cookie.domain = CookieMatching.canonical(text(domain)) }
        } else if matches(name, "path") {
            cookie.path = value.utf8.first == UInt8(ascii: "/") ? value : nil
        } else if matches(name, "secure") {
            cookie.isSecure = true
        } else if matches(name, "httponly") {
            cookie.isHTTPOnly = true
        } else if matches(name, "samesite") {
            if matches(value, "strict") {
                cookie.sameSite = .strict
            } else if matches(value, "lax") {
                cookie.sameSite = .lax
            } else if matches(value, "none") {
                cookie.sameSite = .noRestriction
            }
        }
    }

    /// `Max-Age`: an optional `-` and ASCII digits; anything else is ignored. Past `Int`'s range it saturates.
    private static func maxAge(_ value: String) -> Int? {
        var digits = value.utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var number = 0
        for digit in digits {
            let (times10, overflow) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            guard !overflow, !overflowAgain else { return negative ? Int.min : Int.max }
            number = sum
        }
        return negative ? -number : number
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else {
            return []
        }
        return bytes[first...last]
    }

    /// Bytes cut from a `String` at ASCII bytes, as text again (they are whole UTF-8).
    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Control characters other than tab (RFC 6265bis §5.6: `%x00-08 / %x0A-1F / %x7F` abort).
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
