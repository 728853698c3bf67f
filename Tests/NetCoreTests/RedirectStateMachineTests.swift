import Foundation
import Testing

@testable import NetCore

/// The redirect decisions as plain values: which responses are hops, what the next request carries, when the
/// chain ends.
@Suite("Redirect state machine")
struct RedirectStateMachineTests {
    private func request(
        _ url: String, method: HTTPRequestMethod = .get, fields: [(name: String, value: String)] = [],
        body: UploadSource? = nil
    ) throws -> TransportRequest {
        let head = try HTTPRequestHead(
            method: method, url: try #require(URL(string: url)), headerFields: HTTPHeaderFields(fields))
        return TransportRequest(head: head, body: body)
    }

    private func response(_ status: Int, _ location: String?, cookie: Bool = false) -> HTTPResponseHead {
        var fields: [HTTPHeaderField] = []
        if let location { fields.append(try! HTTPHeaderField(name: "Location", value: location)) }
        if cookie { fields.append(try! HTTPHeaderField(name: "Set-Cookie", value: "a=b")) }
        return HTTPResponseHead(statusCode: status, headerFields: HTTPHeaderFields(fields))
    }

    /// The proposed hop, or what the machine said instead.
    private func hop(
        _ status: Int, _ location: String?, from request: TransportRequest, policy: RedirectPolicy = .default
    ) -> Result<RedirectHop, Refusal> {
        var machine = RedirectStateMachine(policy: policy)
        switch machine.received(response(status, location), for: request) {
        case .deliver: return .failure(Refusal(text: "deliver"))
        case .fail(let error as RedirectError): return .failure(Refusal(text: "\(error.reason)"))
        case .fail(let error as TransportError): return .failure(Refusal(text: "\(error.kind)"))
        case .fail(let error): return .failure(Refusal(text: "\(error)"))
        case .propose(let hop): return .success(hop)
        }
    }

    @Test("only 301, 302, 303, 307 and 308 with a Location are hops")
    func statuses() throws {
        let get = try request("https://api.example.com/a")
        for status in [301, 302, 303, 307, 308] {
            #expect((try? hop(status, "/b", from: get).get())?.to.absoluteString == "https://api.example.com/b")
        }
        for status in [200, 300, 304, 305, 306, 404] {
            #expect(throws: Never.self) {
                if case .success = hop(status, "/b", from: get) { Issue.record("\(status)") }
            }
        }
        #expect(hop(302, nil, from: get).failureText == "deliver")
    }

    @Test("a Location resolves against the URL that answered: relative, protocol-relative, absolute")
    func resolution() throws {
        let get = try request("https://api.example.com/a/b?x=1")
        #expect((try hop(302, "c?y=2", from: get).get()).to.absoluteString == "https://api.example.com/a/c?y=2")
        #expect((try hop(302, "//cdn.example.com/z", from: get).get()).to.absoluteString == "https://cdn.example.com/z")
        #expect((try hop(302, "/p#frag", from: get).get()).request.head.path == "/p")
    }

    @Test("only http and https targets; a Location that is no URL with a host fails")
    func schemes() throws {
        let get = try request("https://api.example.com/a")
        #expect(hop(302, "file:///etc/passwd", from: get).failureText == #"unsupportedScheme("file")"#)
        #expect(hop(302, "data:text/plain,hi", from: get).failureText == #"unsupportedScheme("data")"#)
        #expect(hop(302, "javascript:alert(1)", from: get).failureText == #"unsupportedScheme("javascript")"#)
        #expect(hop(302, "", from: get).failureText == "invalidLocation")
        #expect(hop(302, "http://", from: get).failureText == "invalidLocation")
    }

    @Test("two different Location fields are refused")
    func conflictingLocations() throws {
        let get = try request("https://api.example.com/a")
        var machine = RedirectStateMachine(policy: .default)
        let head = HTTPResponseHead(
            statusCode: 302,
            headerFields: try HTTPHeaderFields([(name: "Location", value: "/b"), (name: "Location", value: "/c")]))
        guard case .fail(let error as RedirectError) = machine.received(head, for: get) else {
            Issue.record("two Locations were followed")
            return
        }
        #expect(error.reason == .invalidLocation)
    }

    @Test("https to http is refused unless allowed, and then carries no credential")
    func downgrade() throws {
        let get = try request("https://api.example.com/a", fields: [(name: "Authorization", value: "Bearer t")])
        #expect(hop(302, "http://api.example.com/b", from: get).failureText == "insecureDowngrade")
        let allowed = try hop(
            302, "http://api.example.com/b", from: get, policy: RedirectPolicy(allowsInsecureDowngrade: true)
        ).get()
        #expect(allowed.request.value(forHeader: "Authorization") == nil)
        #expect(allowed.isCrossOrigin)
    }

    @Test("to another origin only the allow-listed fields go; within the origin every field goes")
    func crossOriginFields() throws {
        let fields = [
            (name: "Authorization", value: "Bearer t"), (name: "X-Api-Key", value: "k"), (name: "X-Custom", value: "c"),
            (name: "Accept", value: "application/json"), (name: "Cookie", value: "s=1"),
            (name: "Range", value: "bytes=0-"),
        ]
        let get = try request("https://api.example.com/a", fields: fields)
        let away = try hop(302, "https://cdn.example.net/b", from: get).get()
        #expect(away.request.head.headerFields.map(\.name) == ["Accept", "Range"])
        let near = try hop(302, "/b", from: get).get()
        #expect(near.request.head.headerFields.map(\.name) == fields.map(\.name))
        // A field the request declares as a credential never crosses, even when the allow-list names it.
        var declared = get
        declared.credentialFields.formUnion(.header("Range"))
        let policy = RedirectPolicy(crossOriginFields: ["accept", "range"])
        let strict = try hop(302, "https://cdn.example.net/b", from: declared, policy: policy).get()
        #expect(strict.request.head.headerFields.map(\.name) == ["Accept"])
    }

    @Test("303 and 301/302 after POST become a GET without body or Content-* fields; 307/308 keep them")
    func methodRewrites() throws {
        let fields = [(name: "Content-Type", value: "text/plain"), (name: "Content-Language", value: "en")]
        let body = UploadSource(data: Data("abc".utf8))
        let post = try request("https://api.example.com/a", method: .post, fields: fields, body: body)
        for status in [301, 302, 303] {
            let next = try hop(status, "/b", from: post).get().request
            #expect(next.method == .get && next.body == nil && next.head.headerFields.isEmpty, "\(status)")
        }
        for status in [307, 308] {
            let next = try hop(status, "/b", from: post).get().request
            #expect(next.method == .post && next.body == body && next.head.headerFields.count == 2, "\(status)")
        }
        let put = try request("https://api.example.com/a", method: .put, body: body)
        #expect(try hop(302, "/b", from: put).get().request.method == .put)
        #expect(try hop(303, "/b", from: put).get().request.method == .get)
        let head = try request("https://api.example.com/a", method: .head)
        #expect(try hop(303, "/b", from: head).get().request.method == .head)
    }

    @Test("a body goes to another origin never, and again only when it can be read again")
    func bodies() throws {
        let post = try request("https://api.example.com/a", method: .post, body: UploadSource(data: Data("abc".utf8)))
        #expect(hop(307, "https://evil.example/b", from: post).failureText == "bodyToAnotherOrigin")
        #expect(hop(308, "https://evil.example/b", from: post).failureText == "bodyToAnotherOrigin")
        // Turned into a GET, nothing of the body goes: another origin is fine.
        #expect((try? hop(303, "https://evil.example/b", from: post).get()) != nil)
        let stream = try request(
            "https://api.example.com/a", method: .post,
            body: UploadSource(stream: InputStream(data: Data("abc".utf8)), length: 3))
        #expect(hop(307, "/b", from: stream).failureText == "bodyNotReplayable")
    }

    @Test("user names or passwords in a Location to another origin are refused")
    func credentialsInLocation() throws {
        let get = try request("https://api.example.com/a")
        #expect(hop(302, "https://user:pass@evil.example/b", from: get).failureText == "credentialsInLocation")
        // Within the origin they are dropped, as for any URL NetKit sends.
        #expect(
            try hop(302, "https://u:p@api.example.com/b", from: get).get().request.head.authority == "api.example.com")
    }

    @Test("the chain ends after maximumHops, and at once on a loop unless a cookie changed")
    func limits() throws {
        var machine = RedirectStateMachine(policy: RedirectPolicy(maximumHops: 2))
        var current = try request("https://api.example.com/0")
        var outcomes: [String] = []
        for index in 1...3 {
            switch machine.received(response(302, "/\(index)"), for: current) {
            case .propose(let hop):
                #expect(machine.follow(hop.request, after: hop) == nil)
                current = hop.request
                outcomes.append("hop \(hop.number)")
            case .fail(let error as TransportError): outcomes.append("\(error.kind)")
            default: outcomes.append("other")
            }
        }
        #expect(outcomes == ["hop 1", "hop 2", "tooManyRedirects"])

        var loop = RedirectStateMachine(policy: .default)
        let a = try request("https://api.example.com/a")
        guard case .propose(let toB) = loop.received(response(302, "/b"), for: a) else { throw CancellationError() }
        #expect(loop.follow(toB.request, after: toB) == nil)
        guard case .propose(let toA) = loop.received(response(302, "/a"), for: toB.request) else {
            throw CancellationError()
        }
        #expect((loop.follow(toA.request, after: toA) as? TransportError)?.kind == .tooManyRedirects)

        // A cookie set on the way changes the next request: the same URL again is no loop.
        var login = RedirectStateMachine(policy: .default)
        guard case .propose(let again) = login.received(response(302, "/a", cookie: true), for: a) else {
            throw CancellationError()
        }
        #expect(login.follow(again.request, after: again) == nil)
    }

    @Test("a policy's own request is checked against the same rules")
    func userRequests() throws {
        var machine = RedirectStateMachine(policy: .default)
        let get = try request("https://api.example.com/a")
        guard case .propose(let hop) = machine.received(response(302, "/b"), for: get) else {
            throw CancellationError()
        }
        var changed = hop.request
        try changed.head.setURL(try #require(URL(string: "http://api.example.com/c")))
        #expect((machine.follow(changed, after: hop) as? RedirectError)?.reason == .insecureDowngrade)
        var withBody = hop.request
        try withBody.head.setURL(try #require(URL(string: "https://other.example/c")))
        withBody.body = UploadSource(data: Data("x".utf8))
        #expect((machine.follow(withBody, after: hop) as? RedirectError)?.reason == .bodyToAnotherOrigin)
    }

    @Test("RedirectPolicy keeps its hop count within 0...hopLimit")
    func hopBounds() {
        #expect(RedirectPolicy(maximumHops: -3).maximumHops == 0)
        #expect(RedirectPolicy(maximumHops: 10_000).maximumHops == RedirectPolicy.hopLimit)
        var policy = RedirectPolicy()
        policy.maximumHops = 1_000
        #expect(policy.maximumHops == RedirectPolicy.hopLimit)
    }

    @Test("a RedirectError names the status, both origins and the rule, never the path or query")
    func errorText() {
        let error = RedirectError(
            .insecureDowngrade, statusCode: 302, from: HTTPOrigin(URL(string: "https://api.example.com/secret?k=1")!),
            to: HTTPOrigin(URL(string: "http://api.example.com/x?token=2")!))
        #expect(
            error.description
                == "Refused the 302 redirect from https://api.example.com to http://api.example.com: it leaves https "
                + "for http; set RedirectPolicy.allowsInsecureDowngrade to follow such hops (credentials never go)")
    }
}

/// What the machine said instead of a hop.
private struct Refusal: Error {
    let text: String
}

extension Result where Failure == Refusal {
    fileprivate var failureText: String? {
        if case .failure(let refusal) = self { return refusal.text }
        return nil
    }
}
