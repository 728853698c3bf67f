import Foundation
import NetCore
import Testing

/// A head's host, port and origin, read from its authority as bytes: an IPv6 address's colons are not a port's.
@Suite("Host, port and origin of an authority")
struct HTTPOriginTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let authority: String
        let host: String
        let port: Int?
        let origin: String
        var testDescription: String { authority }
    }

    static let rows: [Row] = [
        Row(authority: "api.example.com", host: "api.example.com", port: nil, origin: "https://api.example.com"),
        Row(
            authority: "api.example.com:8443", host: "api.example.com", port: 8443,
            origin: "https://api.example.com:8443"),
        Row(authority: "API.Example.COM:443", host: "API.Example.COM", port: 443, origin: "https://api.example.com"),
        Row(authority: "127.0.0.1:8080", host: "127.0.0.1", port: 8080, origin: "https://127.0.0.1:8080"),
        Row(authority: "[::1]", host: "::1", port: nil, origin: "https://[::1]"),
        Row(authority: "[::1]:8443", host: "::1", port: 8443, origin: "https://[::1]:8443"),
        Row(authority: "[fe80::1%25eth0]:80", host: "fe80::1%25eth0", port: 80, origin: "https://[fe80::1%25eth0]:80"),
        Row(authority: "api.example.com:", host: "api.example.com", port: nil, origin: "https://api.example.com"),
        Row(
            authority: "api.example.com:99999999999999999999", host: "api.example.com", port: nil,
            origin: "https://api.example.com"),
    ]

    @Test("host and port", arguments: rows)
    func hostAndPort(_ row: Row) throws {
        let head = try HTTPRequestHead(url: #require(URL(string: "https://placeholder.example/")))
        var target = head
        try target.setTarget(scheme: "https", authority: row.authority, path: "/")
        #expect(target.host == row.host)
        #expect(target.port == row.port)
        #expect(HTTPOrigin(target).description == row.origin)
        #expect(HTTPOrigin(target) == HTTPOrigin(scheme: "https", host: row.host, port: row.port))
    }
}
