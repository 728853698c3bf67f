import Foundation
import Testing
@testable import NetCore

/// Input that must never reach the wire as it is: what the hostile-input table of Docs/Reliability.md promises
/// beyond the path and header rules tested elsewhere.
@Suite("Hostile input")
struct HostileInputTests {
    let base = URL(string: "https://api.example.com/v1")!

    @Test("a protocol-relative path (//host) stays under the base URL's host")
    func protocolRelativePath() throws {
        do {
            let url = try RequestURLBuilder.url(base: base, path: "//evil.example/x", query: nil)
            #expect(url.host() == "api.example.com", "\(url)")
            #expect(url.path().hasPrefix("/v1/"), "\(url)")
        } catch {
            // Refusing it is as good as keeping it under the base: it never leaves for another host.
            #expect("\(error)".contains("//evil.example/x"))
        }
    }

    @Test(
        "CR, LF, NUL and the query's own delimiters in query names and values are percent-encoded, never raw",
        arguments: ["a\r\nX-Injected: 1", "nul\u{0}byte", "a&b=c+d e", "caf\u{E9}", "#fragment"])
    func queryEncoding(value: String) throws {
        let url = try RequestURLBuilder.url(base: base, path: "/q", query: [value: value])
        let query = try #require(url.query(percentEncoded: true))
        for raw in ["\r", "\n", "\u{0}", " ", "#", "+"] {
            #expect(!query.contains(raw), "\(raw.debugDescription) reached the query raw: \(query)")
        }
        // Exactly one name and one value: nothing the value held was read as a delimiter.
        #expect(query.split(separator: "&").count == 1, "\(query)")
        #expect(query.split(separator: "=").count == 2, "\(query)")
        #expect(url.fragment == nil)
    }
}
