/// Which domains a ``CookieJar`` takes as public suffixes: names under which anyone may register a site (`com`,
/// `co.uk`, `github.io`), for which no server may set a cookie that all their sites would then share.
///
/// A `Set-Cookie` whose `Domain` attribute is a public suffix is refused (RFC 6265bis §5.7), unless the domain is
/// the request's own host: then the cookie is kept for that host alone (host-only).
///
/// ```swift
/// let jar = CookieJar()                                        // .bundled: the Public Suffix List NetKit ships
/// let intranet = CookieJar(publicSuffixes: .custom { domain in // your own rule: let `corp` hosts share cookies
///     domain != "corp" && PublicSuffixes.bundled.isPublicSuffix(domain)
/// })
/// ```
///
/// The bundled list is the Public Suffix List (https://publicsuffix.org/list/, MPL-2.0), its ICANN and PRIVATE
/// sections, in `Sources/NetCore/Cookies/PublicSuffixList+Rules.swift`, loaded the first time a cookie with a
/// `Domain` attribute arrives. Its non-ASCII names are kept in their ASCII (`xn--`) form, as hosts arrive on the
/// wire. A maintainer refreshes it with `Scripts/update-public-suffix-list.py --fetch` (or with the path of a
/// downloaded `public_suffix_list.dat`), which regenerates that file; the build never touches the network.
public struct PublicSuffixes: Sendable {
    private enum Source: Sendable {
        case bundled
        case list(PublicSuffixList)
        case custom(@Sendable (String) -> Bool)
    }

    private let source: Source

    private init(_ source: Source) {
        self.source = source
    }

    /// The Public Suffix List NetKit ships (the default): `co.uk`, `github.io`, `herokuapp.com` and every other
    /// listed suffix, wildcards and exceptions included, and every unlisted top-level name.
    public static let bundled = PublicSuffixes(.bundled)

    /// No list: only top-level names (one label, such as `com` or `localhost`) are public suffixes, so that
    /// `a.co.uk` may set a cookie for all of `co.uk`. For hosts the list does not know, on a network of your own.
    /// (Not named `none`, which an optional's `.none` would shadow.)
    public static let topLevelOnly = PublicSuffixes(.list(.empty))

    /// Your own rule: `isPublicSuffix` is asked about each `Domain` attribute the jar would otherwise accept, in
    /// ASCII lowercase, without a leading or trailing dot; `true` refuses it (or keeps the cookie host-only when
    /// the domain is the request's own host).
    public static func custom(_ isPublicSuffix: @escaping @Sendable (String) -> Bool) -> PublicSuffixes {
        PublicSuffixes(.custom(isPublicSuffix))
    }

    /// A list of your own, in the Public Suffix List's format (for tests, and for lists of private suffixes).
    package static func list(_ list: PublicSuffixList) -> PublicSuffixes {
        PublicSuffixes(.list(list))
    }

    /// Whether `domain` (a host name; a leading and a trailing dot are ignored, letters in any ASCII case) is a
    /// public suffix by these rules.
    public func isPublicSuffix(_ domain: String) -> Bool {
        var bytes = CookieMatching.canonical(domain).utf8[...]
        if bytes.first == UInt8(ascii: ".") { bytes = bytes.dropFirst() }
        if bytes.last == UInt8(ascii: ".") { bytes = bytes.dropLast() }
        let name = String(decoding: bytes, as: UTF8.self)
        switch source {
        case .bundled: return PublicSuffixList.bundled.isPublicSuffix(name)
        case .list(let list): return list.isPublicSuffix(name)
        case .custom(let isPublicSuffix): return isPublicSuffix(name)
        }
    }
}
