#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import NetCore
@testable import NetTransport
import Testing

/// The cookie rules URLSessionTransport applies to a configuration's `HTTPCookieStorage` on Linux, where
/// FoundationNetworking's own storage matches the host alone: what goes with a request, what a response may set.
@Suite("HTTPCookieStorage by RFC 6265's rules")
struct HTTPCookieStorageRulesTests {
    /// An empty storage of its own.
    func storage() throws -> HTTPCookieStorage {
        try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
    }

    func cookie(
        _ name: String, domain: String = "api.example.com", path: String = "/", secure: Bool = false,
        expires: Date? = nil
    ) throws -> HTTPCookie {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: "1", .domain: domain, .path: path]
        if secure { properties[.secure] = "TRUE" }
        if let expires { properties[.expires] = expires }
        return try #require(HTTPCookie(properties: properties))
    }

    func head(_ url: String) throws -> HTTPRequestHead {
        try HTTPRequestHead(url: try #require(URL(string: url)))
    }

    func header(_ storage: HTTPCookieStorage, _ url: String) throws -> Set<String> {
        Set((storage.cookieHeader(for: try head(url)) ?? "").split(separator: "; ").map(String.init))
    }

    @Test(
        "what goes with a request: the path, Secure, the expiry and the domain decide, not the host alone",
        arguments: [
            ("http://api.example.com/me", ["root=1", "wide=1"]),
            ("http://api.example.com/admin", ["root=1", "wide=1", "admin=1"]),
            ("http://api.example.com/admin/users", ["root=1", "wide=1", "admin=1"]),
            ("http://api.example.com/administrator", ["root=1", "wide=1"]),
            ("https://api.example.com/me", ["root=1", "wide=1", "secure=1"]),
            ("http://www.example.com/me", ["wide=1"]),
        ])
    func sent(url: String, expected: [String]) throws {
        let storage = try storage()
        storage.setCookie(try cookie("root"))
        storage.setCookie(try cookie("admin", path: "/admin"))
        storage.setCookie(try cookie("secure", secure: true))
        storage.setCookie(try cookie("wide", domain: ".example.com"))
        storage.setCookie(try cookie("later", expires: Date(timeIntervalSinceNow: 60)))
        // Expired by the time the request goes (the storage drops expired cookies only when it sets another).
        let sent = storage.cookieHeader(for: try head(url), at: Date(timeIntervalSinceNow: 120))
        #expect(Set((sent ?? "").split(separator: "; ").map(String.init)) == Set(expected))
    }

    @Test("longer paths first, as RFC 6265 §5.4 orders them")
    func order() throws {
        let storage = try storage()
        storage.setCookie(try cookie("a", path: "/"))
        storage.setCookie(try cookie("c", path: "/admin/users"))
        storage.setCookie(try cookie("b", path: "/admin"))
        #expect(storage.cookieHeader(for: try head("http://api.example.com/admin/users/7")) == "c=1; b=1; a=1")
    }

    @Test("no cookie for the request: no header")
    func none() throws {
        let storage = try storage()
        #expect(storage.cookieHeader(for: try head("http://api.example.com/")) == nil)
        storage.setCookie(try cookie("admin", path: "/admin"))
        #expect(storage.cookieHeader(for: try head("http://api.example.com/")) == nil)
    }

    func keep(_ storage: HTTPCookieStorage, _ fields: [String], from url: String) throws {
        let head = HTTPResponseHead(
            statusCode: 200, headerFields: try HTTPHeaderFields(fields.map { (name: "Set-Cookie", value: $0) }))
        storage.keepCookies(of: head, for: try self.head(url))
    }

    @Test(
        "what a response may set: refused as NetKit's cookie jar refuses it",
        arguments: [
            ("http://evil.example.com/", "all=1; Domain=com"),
            ("http://api.example.com/", "other=1; Domain=other.com"),
            ("http://api.example.com/", "secure=1; Secure"),
            ("https://api.example.com/", "__Host-id=1; Secure; Path=/; Domain=example.com"),
            ("https://api.example.com/", "__Host-id=1; Path=/"),
            ("https://api.example.com/", "__Secure-id=1"),
        ])
    func refused(url: String, field: String) throws {
        let storage = try storage()
        try keep(storage, [field], from: url)
        #expect(storage.cookies?.isEmpty ?? true)
    }

    @Test("what a response may set: kept with its scope")
    func kept() throws {
        let storage = try storage()
        try keep(
            storage,
            ["session=abc; Path=/; HttpOnly", "wide=1; Domain=example.com", "__Host-id=7; Secure; Path=/"],
            from: "https://api.example.com/login")
        let kept = (storage.cookies ?? []).sorted { $0.name < $1.name }
        #expect(kept.map(\.name) == ["__Host-id", "session", "wide"])
        #expect(kept.map(\.domain) == ["api.example.com", "api.example.com", ".example.com"])
        #expect(kept.map(\.isSecure) == [true, false, false])
        #expect(kept[1].isHTTPOnly)
        #expect(try header(storage, "http://www.example.com/") == ["wide=1"])
    }

    @Test("a public suffix that is the host itself makes a host-only cookie")
    func publicSuffixHost() throws {
        let storage = try storage()
        try keep(storage, ["own=1; Domain=github.io"], from: "https://github.io/")
        #expect(storage.cookies?.map(\.domain) == ["github.io"])
    }

    @Test("a plain origin cannot replace a Secure cookie; an expiry in the past deletes")
    func replaceAndDelete() throws {
        let storage = try storage()
        try keep(storage, ["id=secret; Secure", "plain=1"], from: "https://api.example.com/")
        try keep(storage, ["id=forged", "plain=1; Max-Age=0"], from: "http://api.example.com/")
        #expect(storage.cookies?.map(\.value) == ["secret"])
    }

    @Test("a plain origin's cookie for the parent domain cannot shadow a sibling host's Secure cookie")
    func siblingShadow() throws {
        let storage = try storage()
        try keep(storage, ["id=secret; Secure"], from: "https://www.example.com/")
        try keep(storage, ["id=forged; Domain=example.com"], from: "http://api.example.com/")
        #expect(storage.cookies?.map(\.value) == ["secret"])
    }
}
#endif
