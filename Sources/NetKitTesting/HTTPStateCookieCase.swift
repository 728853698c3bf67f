import Foundation

/// One parser case of the RFC 6265 test suite (abarth/http-state, `tests/data/parser`): the header fields its
/// server answers `GET /cookie-parser?<name>` with (`Set-Cookie` lines, and a `Location` when the case names one),
/// and the `Cookie` header a client must then send to that `Location`.
///
/// The cases are data from outside the repository, read from the folder ``directory`` names; without it there
/// are none, and the tests that need them are skipped.
package struct HTTPStateCookieCase: Sendable, CustomStringConvertible {
    /// The case's name: `0001`, `domain0012`, `optional-domain0030`.
    package var name: String
    /// The `<name>-test` file's fields, in order: `Set-Cookie` values as the server sends them, and perhaps a
    /// `Location`.
    package var fields: [(name: String, value: String)]
    /// The `Cookie` header the client must send to the result URL; `nil`: none.
    package var expectedCookie: String?

    /// The `Set-Cookie` values, in order.
    package var setCookies: [String] {
        fields.filter { $0.name.caseInsensitiveCompare("Set-Cookie") == .orderedSame }.map(\.value)
    }

    /// Where the first response sends the client: the case's own `Location`, else `/cookie-parser-result?<name>`.
    package var location: String {
        fields.last { $0.name.caseInsensitiveCompare("Location") == .orderedSame }?.value
            ?? "/cookie-parser-result?" + name
    }

    /// Whether the case needs the suite's host names (`home.example.org` and its relatives, which its server is
    /// reached by through a hosts file): it sets a `Domain` attribute or sends the client to an absolute URL.
    package var needsHostNames: Bool {
        !location.hasPrefix("/")
            || setCookies.contains { $0.range(of: "domain", options: .caseInsensitive) != nil }
    }

    package var description: String { name }

    /// The URL the suite's pages are first requested at: `http://home.example.org:8888/cookie-parser?<name>`.
    package var requestURL: URL {
        // Cannot fail: a literal URL with a name of letters, digits and dashes.
        URL(string: "http://home.example.org:8888/cookie-parser?" + name)!
    }

    /// The folder of `*-test` and `*-expected` files: `http-state/parser` in `$NETKIT_COOKIE_TEST_DATA`, else in
    /// `shared/cookie-test-data` beside the package (`Scripts/cookie-test-data.sh` lays it out).
    package static var directory: URL {
        let data: URL
        if let path = ProcessInfo.processInfo.environment["NETKIT_COOKIE_TEST_DATA"], !path.isEmpty {
            data = URL(fileURLWithPath: path, isDirectory: true)
        } else {
            let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            data = package.deletingLastPathComponent().appendingPathComponent("shared/cookie-test-data")
        }
        return data.appendingPathComponent("http-state/parser", isDirectory: true)
    }

    /// Every case of ``directory`` but those the suite disables (`disabled-…`), in name order; none without it.
    package static let all: [HTTPStateCookieCase] = load(from: directory)

    /// The cases of `directory`.
    package static func load(from directory: URL) -> [HTTPStateCookieCase] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix("-test") && !$0.hasPrefix("disabled-") }.sorted().compactMap { file in
            let name = String(file.dropLast("-test".count))
            guard let test = try? Data(contentsOf: directory.appendingPathComponent(file)) else { return nil }
            let expected = (try? Data(contentsOf: directory.appendingPathComponent(name + "-expected"))) ?? Data()
            return HTTPStateCookieCase(
                name: name, fields: lines(test).compactMap(field),
                expectedCookie: expectedCookie(lines(expected)))
        }
    }

    /// `name: value` as the suite's server reads a line (`(\S+):\s*(.*)`): a name without spaces, a colon, the
    /// rest after any spaces.
    private static func field(_ line: Substring) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
            !line[..<colon].contains(where: \.isWhitespace)
        else { return nil }
        return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }))
    }

    /// The value of the file's one `Cookie:` line; `nil` for none (or more than one, as the suite's server has it).
    private static func expectedCookie(_ lines: [Substring]) -> String? {
        let values = lines.compactMap { line -> String? in
            guard let range = line.range(of: "Cookie:") else { return nil }
            return String(line[range.upperBound...].drop { $0 == " " || $0 == "\t" })
        }
        return values.count == 1 ? values[0] : nil
    }

    /// The file's lines, split at the byte LF (a CR stays, as in the suite's server).
    private static func lines(_ data: Data) -> [Substring] {
        data.split(separator: UInt8(ascii: "\n")).map { Substring(String(decoding: $0, as: UTF8.self)) }
    }
}

extension HTTPStateCookieCase {
    /// NetKit's own cases in the suite's shape, for runs without the suite's data: the server answers
    /// `/cookie-parser?<name>` with a `302` and these `Set-Cookie` fields, and the result must carry the `Cookie`
    /// header given (RFC 6265bis, a jar whose clock reads ``HTTPStateCookieSuite/now``; every request to 127.0.0.1
    /// over http).
    package static let netKit: [HTTPStateCookieCase] = [
        own("netkit-one", ["a=1"], "a=1"),
        own("netkit-two-in-order", ["a=1", "b=2"], "a=1; b=2"),
        own("netkit-later-replaces", ["a=1", "a=2"], "a=2"),
        own("netkit-names-are-case-sensitive", ["a=1", "A=2"], "a=1; A=2"),
        own("netkit-max-age-zero-deletes", ["a=1", "a=2; Max-Age=0"], nil),
        own("netkit-past-expires-deletes", ["a=1", "b=2", "a=3; Expires=Thu, 01 Jan 2009 00:00:00 GMT"], "b=2"),
        own("netkit-future-expires-keeps", ["a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT"], "a=1"),
        own("netkit-other-path-not-sent", ["a=1; Path=/elsewhere", "b=2"], "b=2"),
        own("netkit-longer-path-first", ["a=1; Path=/", "b=2; Path=/cookie-parser-result"], "b=2; a=1"),
        own("netkit-secure-over-http-ignored", ["a=1; Secure", "b=2"], "b=2"),
        own("netkit-attributes-any-case", ["a=1; path=/; MAX-AGE=60; httponly; SameSite=Lax"], "a=1"),
        own("netkit-spaces-trimmed", ["  a  =  1  "], "a=1"),
        own("netkit-quotes-kept", [#"a="x y""#], #"a="x y""#),
        own("netkit-ip-domain-is-host-only", ["a=1; Domain=127.0.0.1"], "a=1"),
        own("netkit-foreign-domain-refused", ["a=1; Domain=example.com", "b=2"], "b=2"),
        own("netkit-public-suffix-domain-refused", ["a=1; Domain=com", "b=2"], "b=2"),
    ]

    private static func own(_ name: String, _ setCookies: [String], _ expected: String?) -> HTTPStateCookieCase {
        HTTPStateCookieCase(
            name: name, fields: setCookies.map { (name: "Set-Cookie", value: $0) }, expectedCookie: expected)
    }
}
