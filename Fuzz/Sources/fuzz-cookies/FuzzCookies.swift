import CLibFuzzer
import FuzzSupport
import NetCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hosts that reach the interesting rules: public suffixes of both sections of the list, wildcards and exceptions,
/// trailing dots, IP addresses, A-labels, and a host whose name Swift's `String` equates with another's bytes.
let hosts = [
    "www.example.com", "example.com", "example.com.", "www.example.com.", "com", "com.", "a.co.uk", "co.uk",
    "ann.github.io", "bob.github.io", "github.io", "app.herokuapp.com", "a.b.test.ck", "a.www.ck", "127.0.0.1",
    "[::1]", "10.0.0.1", "xn--85x722f.xn--55qx5d.cn", "k.test", "localhost",
]

/// CookieJar: arbitrary `Set-Cookie` lines from arbitrary hosts are stored, then arbitrary requests are matched,
/// without a crash; and every time, whatever the bytes:
/// - a cookie is sent only to a host it may go to: a host-only cookie to its host's exact bytes, a domain cookie
///   to a name (not an IP address) that is its domain or ends with "." and its domain, byte for byte;
/// - a `Secure` cookie only over https, and only where its path path-matches the request's, byte for byte;
/// - no domain cookie's domain is a public suffix (the jar's default, bundled list);
/// - at most 3000 cookies in all and 50 per domain, each name and value at most 4096 bytes.
///
/// Input: fields separated by NUL bytes, at most 64. A field's first byte is the operation (bit 0: 0 stores, 1
/// matches; bit 1: https), its second picks a host from `hosts` (0xF0 and above: the host is the text up to the
/// first LF). A store's text is a request path up to the first LF (if any) then `Set-Cookie` values one a line; a
/// match's text is the request path.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let jar = CookieJar()
    var operations = 0
    while !input.rest.isEmpty && operations < 64 {
        operations += 1
        var field = input.field()[...]
        let operation = field.popFirst() ?? 0
        let selector = field.popFirst() ?? 0
        var host = hosts[Int(selector) % hosts.count]
        if selector >= 0xF0 {
            host = String(decoding: line(&field), as: UTF8.self)
        }
        let scheme = operation & 2 == 0 ? "http" : "https"
        if operation & 1 == 0 {
            let path = field.contains(0x0A) ? line(&field) : [UInt8(ascii: "/")]
            guard let url = url(scheme, host, path) else { continue }
            let values = field.split(separator: 0x0A).map { String(decoding: $0.filter { $0 != 0x0D }, as: UTF8.self) }
            guard let fields = try? HTTPHeaderFields(values.map { (name: "Set-Cookie", value: $0) }) else { continue }
            jar.storeCookies(from: fields, for: url)
        } else {
            guard let url = url(scheme, host, Array(field)) else { continue }
            checkSent(jar.cookies(for: url), to: url)
        }
        checkStored(jar.allCookies)
    }
    return 0
}

/// The bytes up to the first LF of `field` (which is consumed), or all of it.
func line(_ field: inout ArraySlice<UInt8>) -> [UInt8] {
    let end = field.firstIndex(of: 0x0A) ?? field.endIndex
    defer { field = field[min(end + 1, field.endIndex)...] }
    return Array(field[..<end])
}

/// `scheme://host/path`, the path's bytes percent-encoded where a URL would not take them; `nil` when the host
/// makes no URL.
func url(_ scheme: String, _ host: String, _ path: [UInt8]) -> URL? {
    var encoded = path.first == UInt8(ascii: "/") ? "" : "/"
    for byte in path {
        let isAllowed = (0x21...0x7E).contains(byte) && !"\"#<>?[\\]^`{|}%".utf8.contains(byte)
        encoded += isAllowed ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded
    }
    return URL(string: scheme + "://" + host + encoded)
}

extension String {
    fileprivate var leftPadded: String { count < 2 ? "0" + self : self }
}

/// The request's host as the jar sees it: ASCII lowercase, an IPv6 address without brackets.
func requestHost(_ url: URL) -> [UInt8]? {
    guard let head = try? HTTPRequestHead(url: url) else { return nil }
    return head.host.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
}

func checkSent(_ cookies: [Cookie], to url: URL) {
    guard let head = try? HTTPRequestHead(url: url), let host = requestHost(url) else {
        check(cookies.isEmpty, "cookies for a URL without a host: \(url)")
        return
    }
    let path = Array(head.pathWithoutQuery.utf8)
    let isIP = endsInANumber(host)
    for cookie in cookies {
        let domain = Array(cookie.domain.utf8)
        if cookie.isHostOnly {
            check(domain == host, "host-only cookie of \(cookie.domain) sent to \(url)")
        } else {
            check(
                domain == host
                    || (!isIP && host.count > domain.count
                        && host.suffix(domain.count + 1) == [UInt8(ascii: ".")] + domain),
                "cookie of \(cookie.domain) sent to \(url)")
        }
        check(!cookie.isSecure || url.scheme == "https", "Secure cookie sent over \(url.scheme ?? "?")")
        let cookiePath = Array(cookie.path.utf8)
        check(
            path == cookiePath
                || (path.starts(with: cookiePath)
                    && (cookiePath.last == UInt8(ascii: "/") || path[cookiePath.count] == UInt8(ascii: "/"))),
            "cookie of path \(cookie.path.debugDescription) sent to \(url)")
    }
}

/// An IPv6 address, or a name whose last label is a number (decimal, or `0x` and hex digits): an IPv4 address to a
/// URL parser, which a domain cookie must never reach by suffix.
func endsInANumber(_ host: [UInt8]) -> Bool {
    if host.contains(UInt8(ascii: ":")) { return true }
    let labels = (host.last == UInt8(ascii: ".") ? host.dropLast() : host[...]).split(
        separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard let last = labels.last, !last.isEmpty else { return false }
    let isHex =
        last.count >= 2 && last.first == 0x30 && last.dropFirst().first.map { $0 | 0x20 } == 0x78
        && last.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
    return isHex || last.allSatisfy { (0x30...0x39).contains($0) }
}

func checkStored(_ cookies: [Cookie]) {
    check(cookies.count <= 3000, "\(cookies.count) cookies kept")
    var perDomain: [[UInt8]: Int] = [:]
    for cookie in cookies {
        perDomain[Array(cookie.domain.utf8), default: 0] += 1
        check(
            cookie.isHostOnly || !PublicSuffixes.bundled.isPublicSuffix(cookie.domain),
            "a domain cookie for the public suffix \(cookie.domain)")
        check(cookie.name.utf8.count + cookie.value.utf8.count <= 4096, "a cookie of more than 4096 bytes")
    }
    check(perDomain.values.allSatisfy { $0 <= 50 }, "more than 50 cookies for one domain")
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_cookies_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzCookies)
}
