import Foundation
import LoopbackServer
import NetCore

/// The RFC 6265 test suite's parser cases (``HTTPStateCookieCase``) over loopback TCP: a server on 127.0.0.1 that
/// serves them as the suite's own server does, and a run of each through a ``NetCore/RequestExecutor`` with a fresh
/// ``NetCore/CookieJar`` on any transport, so that every transport's tests can call it.
///
/// Each case is two requests: `GET /cookie-parser?<name>` answers `302` with the case's `Set-Cookie` fields and a
/// `Location` (`/cookie-parser-result?<name>` unless the case names its own); the result request's answer echoes
/// the `Cookie` header it received. The jar must see the `302`'s `Set-Cookie`: the engine has to follow the
/// redirect itself (a transport that follows it hides the `302` from the jar).
package enum HTTPStateCookieSuite {
    /// What one case ended with.
    package struct Outcome: Sendable, CustomStringConvertible {
        package var name: String
        /// The `Cookie` header the case expects at its result URL; `nil`: none.
        package var expected: String?
        /// The `Cookie` header the result URL received; `nil`: none.
        package var received: String?
        /// The request's error, if it ended with one.
        package var error: String?

        package var passed: Bool { error == nil && expected == received }

        package var description: String {
            "\(name): expected \(expected ?? "(none)"), received \(error ?? received ?? "(none)")"
        }
    }

    /// The instant the jars read, 2012-01-01: the cases' `Expires` dates lie before and after it, as when the suite
    /// was written (one expects a cookie that expires in 2019 to be sent).
    package static let now = Date(timeIntervalSince1970: 1_325_376_000)

    /// The body of a result answer when no `Cookie` header came.
    static let noCookie = "no Cookie header"

    /// A server on 127.0.0.1 that answers as the suite's server does, for `cases`.
    package static func server(for cases: [HTTPStateCookieCase]) throws -> LoopbackServer {
        let byName = Dictionary(cases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return try LoopbackServer { request in
            let name = request.rawQuery ?? ""
            if request.path == "/cookie-parser" {
                guard let found = byName[name] else { return .text("Test not found " + name, status: 404) }
                var headers = found.fields
                if !headers.contains(where: { $0.name.caseInsensitiveCompare("Location") == .orderedSame }) {
                    headers.append((name: "Location", value: found.location))
                }
                return LoopbackResponse(status: 302, headers: headers)
            }
            if request.path == "/cookie-parser-result" || request.path.hasPrefix("/cookie-parser-result/") {
                let cookies = request.headerValues("Cookie")
                // The suite's server also deletes the cookies its cases use most.
                let deletions = ["foo", "foo2", "foo3"].map {
                    (name: "Set-Cookie", value: $0 + "=deleted; Expires=Fri, 07 Aug 2007 08:04:19 GMT")
                }
                let body = cookies.isEmpty ? noCookie : "Cookie: " + cookies.joined(separator: " | ")
                return LoopbackResponse(
                    status: 200, headers: [(name: "Content-Type", value: "text/plain")] + deletions,
                    body: Data(body.utf8))
            }
            return .text("not found", status: 404)
        }
    }

    /// A page of the server, as an endpoint: its whole URL is the base URL the request is sent with.
    private struct Page: Endpoint {
        typealias Response = Data
        var path: String { "" }
        var method: HTTPMethod { .get }
    }

    /// Runs each of `cases` against `server` (from ``server(for:)``) through an engine on `transport` with a
    /// fresh jar that reads the time ``now``, one after the other, and says what each ended with.
    package static func run(
        _ cases: [HTTPStateCookieCase], against server: LoopbackServer, on transport: any HTTPTransport
    ) async -> [Outcome] {
        var outcomes: [Outcome] = []
        for testCase in cases {
            var executor = RequestExecutor(transport: transport)
            executor.cookieJar = CookieJar(now: { now })
            var outcome = Outcome(name: testCase.name, expected: testCase.expectedCookie)
            do {
                // Cannot fail: the server's base URL with a path and a query of letters, digits and dashes.
                let url = URL(string: server.baseURL.absoluteString + "/cookie-parser?" + testCase.name)!
                let body = String(decoding: try await executor.send(Page(), baseURL: url), as: UTF8.self)
                if body != noCookie {
                    outcome.received = body.hasPrefix("Cookie: ") ? String(body.dropFirst("Cookie: ".count)) : body
                }
            } catch {
                outcome.error = "\(type(of: error)): \(error)"
            }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
