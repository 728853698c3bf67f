/// A cookie ``CookieJar/setCookie(_:)`` refused, and why.
public enum CookieError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name is empty or holds a character a cookie name cannot (a control character, space, tab, `=`, `;` or
    /// `,`).
    case invalidName(String)
    /// The value of the cookie so named holds a control character or `;`.
    case invalidValue(name: String)
    /// The domain is empty or holds a character a host cannot.
    case invalidDomain(String)
    /// The path does not start with `/` or holds a control character or `;`.
    case invalidPath(String)

    /// A sentence naming what was refused and why (never the value).
    public var description: String {
        switch self {
        case .invalidName(let name):
            "Cookie name \"\(HeaderValidation.printable(name))\" is empty or holds a control character, space, '=', ';' or ','."
        case .invalidValue(let name):
            "The value of cookie \"\(HeaderValidation.printable(name))\" holds a control character or ';'."
        case .invalidDomain(let domain):
            "Cookie domain \"\(HeaderValidation.printable(domain))\" is empty or is not a host name."
        case .invalidPath(let path):
            "Cookie path \"\(HeaderValidation.printable(path))\" does not start with '/' or holds a control character or ';'."
        }
    }

    /// Checks `cookie` for the jar and puts its domain in canonical form.
    static func check(_ cookie: inout Cookie) throws(CookieError) {
        let name = cookie.name
        guard !name.isEmpty, !name.utf8.contains(where: { isControl($0) || " \t=;,".utf8.contains($0) }) else {
            throw .invalidName(name)
        }
        guard !cookie.value.utf8.contains(where: { isControl($0) || $0 == UInt8(ascii: ";") }) else {
            throw .invalidValue(name: name)
        }
        var bytes = cookie.domain.utf8[...]
        if bytes.first == UInt8(ascii: ".") { bytes = bytes.dropFirst() }
        let domain = CookieMatching.canonical(String(decoding: bytes, as: UTF8.self))
        guard !domain.isEmpty, !domain.utf8.contains(where: { isControl($0) || " \t/;,?#@".utf8.contains($0) }) else {
            throw .invalidDomain(cookie.domain)
        }
        guard cookie.path.utf8.first == UInt8(ascii: "/"),
            !cookie.path.utf8.contains(where: { isControl($0) || $0 == UInt8(ascii: ";") })
        else {
            throw .invalidPath(cookie.path)
        }
        cookie.domain = domain
    }

    private static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }
}
