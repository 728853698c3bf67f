import Foundation
import NetKitTesting
import NetKitLock
import Testing
import NetKit

/// The page sequence over the engine's one road, with a stub transport.
@Suite("Pagination over the engine")
struct PaginationTests {
    struct ListUsers: NetworkRequest {
        typealias Response = [User]
        var path: String { "/users" }
        var method: HTTPMethod { .get }
    }

    struct Listing: Codable, Sendable {
        let users: [User]
        let nextCursor: String?
    }

    struct ListByCursor: NetworkRequest {
        typealias Response = Listing
        var cursor: String?
        var path: String { "/users" }
        var method: HTTPMethod { .get }
        var queryParameters: [String: String]? { cursor.map { ["cursor": $0] } }
    }

    static func users(_ id: Int) -> String { #"[{"id":\#(id),"name":"u\#(id)"}]"# }

    /// A stub answering each path-and-query in `pages` with its user and `Link` field; anything else is a 404.
    static func stub(_ pages: [String: (id: Int, link: String?)]) -> StubTransport {
        StubTransport { request, _ in
            guard let page = pages[request.head.path] else { return .status(404) }
            let reply = StubTransport.Reply.json(users(page.id))
            return page.link.map { reply.header("Link", $0) } ?? reply
        }
    }

    /// Every page of `sequence`, or the error it ended with after them.
    static func collect<Request>(_ sequence: PageSequence<Request>) async -> (
        pages: [Page<Request>], error: (any Error)?
    ) {
        var pages: [Page<Request>] = []
        do {
            for try await page in sequence { pages.append(page) }
            return (pages, nil)
        } catch {
            return (pages, error)
        }
    }

    @Test("follows rel=next over 3 pages, query kept exactly as the link wrote it, and ends without a next link")
    func linkHeaderThreePages() async throws {
        let stub = Self.stub([
            "/v1/users": (
                1,
                #"<https://api.test/v1/users?page=2&q=a%2Bb%20c>; rel="next", <https://api.test/v1/users?page=3>; rel="last""#
            ),
            "/v1/users?page=2&q=a%2Bb%20c": (2, "<https://api.test/v1/users?page=3>; rel=\"prev next\""),
            "/v1/users?page=3": (3, "<https://api.test/v1/users>; rel=first"),
        ])
        let executor = RequestExecutor(transport: stub)
        let sequence = executor.pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader, tokenProvider: { "tok" })
        let (pages, error) = await Self.collect(sequence)
        #expect(error == nil)
        #expect(pages.map { $0.value.map(\.id) } == [[1], [2], [3]])
        #expect(pages.map(\.number) == [1, 2, 3])
        #expect(pages.map(\.response.statusCode) == [200, 200, 200])
        #expect(stub.requests.map(\.head.path) == ["/v1/users", "/v1/users?page=2&q=a%2Bb%20c", "/v1/users?page=3"])
        #expect(stub.requests.allSatisfy { $0.value(forHeader: "Authorization") == "Bearer tok" })
        #expect(pages[0].links.first(relation: "last")?.url?.absoluteString == "https://api.test/v1/users?page=3")
    }

    @Test("a page is fetched only when asked for; cancelling the consuming task stops the sequence")
    func lazyAndCancellable() async throws {
        let stub = Self.stub([
            "/v1/users": (1, "</v1/users?page=2>; rel=next"),
            "/v1/users?page=2": (2, nil),
        ])
        let sequence = RequestExecutor(transport: stub).pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader)
        #expect(stub.requestCount == 0, "making the sequence sends nothing")
        let outcome = try await Task {
            var iterator = sequence.makeAsyncIterator()
            let first = try await iterator.next()
            let afterFirst = stub.requestCount
            withUnsafeCurrentTask { $0?.cancel() }
            let second: Result<Int?, any Error>
            do {
                second = .success(try await iterator.next()?.number)
            } catch {
                second = .failure(error)
            }
            return (first?.number, afterFirst, second)
        }.value
        #expect(outcome.0 == 1)
        #expect(outcome.1 == 1, "no page fetched ahead of the loop")
        switch outcome.2 {
        case .failure(let error): #expect(error is CancellationError)
        case .success: Issue.record("a cancelled task fetched another page")
        }
        #expect(stub.requestCount == 1)
    }

    @Test("a cursor closure makes the next request from the page; nil ends the sequence")
    func cursor() async throws {
        let stub = StubTransport { request, _ in
            let listing: String =
                switch request.head.query {
                case nil: #"{"users":[{"id":1,"name":"a"}],"nextCursor":"c 2"}"#
                case "cursor=c%202": #"{"users":[{"id":2,"name":"b"}],"nextCursor":"c3"}"#
                case "cursor=c3": #"{"users":[{"id":3,"name":"c"}],"nextCursor":null}"#
                default: "{}"
                }
            return .json(listing)
        }
        let executor = RequestExecutor(transport: stub)
        let sequence = executor.pages(of: ListByCursor(cursor: nil), baseURL: stubBase) { page in
            page.value.nextCursor.map { ListByCursor(cursor: $0) }
        }
        let (pages, error) = await Self.collect(sequence)
        #expect(error == nil)
        #expect(pages.flatMap { $0.value.users.map(\.id) } == [1, 2, 3])
        #expect(pages.map(\.request.cursor) == [nil, "c 2", "c3"])
        #expect(stub.requests.map { $0.head.query.map(String.init) } == [nil, "cursor=c%202", "cursor=c3"])
    }

    @Test("the page cap stops a server that never stops naming a next page, with a typed error")
    func pageCap() async throws {
        let stub = StubTransport { request, index in
            .json(Self.users(index)).header("Link", "</v1/users?page=\(index + 2)>; rel=next")
        }
        let policy = PaginationPolicy(maxPages: 3)
        let sequence = RequestExecutor(transport: stub).pages(
            of: ListUsers(), baseURL: stubBase, next: .linkHeader, policy: policy)
        let (pages, error) = await Self.collect(sequence)
        #expect(pages.count == 3)
        #expect(stub.requestCount == 3, "the fourth page was never requested")
        let failure = try #require(error as? PaginationError)
        #expect(failure.reason == .pageLimitReached(3))
        #expect(failure.page == 3)
        #expect(failure.description.contains("maxPages"))
        #expect(!failure.description.contains("page=5"), "query values are hidden")

        let endless = RequestExecutor(transport: StubTransport { _, _ in .json(#"{"users":[],"nextCursor":"x"}"#) })
        let cursorPages = endless.pages(of: ListByCursor(), baseURL: stubBase, policy: PaginationPolicy(maxPages: 2)) {
            page in ListByCursor(cursor: page.value.nextCursor)
        }
        let (fetched, cursorError) = await Self.collect(cursorPages)
        #expect(fetched.count == 2)
        #expect((cursorError as? PaginationError)?.reason == .pageLimitReached(2))
        #expect(PaginationPolicy().maxPages == 1_000)
    }

    @Test("a next link back to a page already fetched stops the loop with a typed error")
    func repeatedLink() async throws {
        let stub = Self.stub([
            "/v1/users": (1, "</v1/users?page=2>; rel=next"),
            "/v1/users?page=2": (2, "<https://API.test:443/v1/users>; rel=next"),
        ])
        let sequence = RequestExecutor(transport: stub).pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader)
        let (pages, error) = await Self.collect(sequence)
        #expect(pages.count == 2)
        #expect(stub.requestCount == 2)
        let failure = try #require(error as? PaginationError)
        #expect(failure.reason == .repeatedLink)
        #expect(failure.page == 2)
        #expect(failure.description.contains("already fetched"))
    }

    @Test("a next link to another origin is refused by default, naming the origin; allowed, it carries no token")
    func crossOrigin() async throws {
        let pages: [String: (id: Int, link: String?)] = [
            "/v1/users": (1, "<https://evil.test:8443/users?page=2>; rel=next"),
            "/users?page=2": (2, nil),
        ]
        let stub = Self.stub(pages)
        let executor = RequestExecutor(transport: stub)
        let refused = await Self.collect(
            executor.pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader, tokenProvider: { "tok" }))
        #expect(refused.pages.count == 1)
        #expect(stub.requestCount == 1)
        let failure = try #require(refused.error as? PaginationError)
        #expect(failure.reason == .otherOrigin(HTTPOrigin(scheme: "https", host: "evil.test", port: 8443)))
        #expect(failure.description.contains("https://evil.test:8443"))
        #expect(failure.description.contains("followsLinksToOtherOrigins"))

        let allowing = Self.stub(pages)
        let followed = await Self.collect(
            RequestExecutor(transport: allowing).pages(
                of: ListUsers(), baseURL: stubBase, next: .linkHeader, tokenProvider: { "tok" },
                policy: PaginationPolicy(followsLinksToOtherOrigins: true)))
        #expect(followed.error == nil)
        #expect(followed.pages.map(\.number) == [1, 2])
        #expect(allowing.requests.map { $0.url?.host() } == ["api.test", "evil.test"])
        #expect(allowing.requests[0].value(forHeader: "Authorization") == "Bearer tok")
        #expect(allowing.requests[1].value(forHeader: "Authorization") == nil, "credentials stay with their origin")
    }

    @Test("a link from https to http is refused, even to another origin allowed, unless the redirect policy allows it")
    func insecureDowngrade() async throws {
        let pages: [String: (id: Int, link: String?)] = [
            "/v1/users": (1, "<http://api.test/v1/users?page=2>; rel=next"),
            "/v1/users?page=2": (2, nil),
        ]
        let stub = Self.stub(pages)
        let policy = PaginationPolicy(followsLinksToOtherOrigins: true)
        let refused = await Self.collect(
            RequestExecutor(transport: stub).pages(
                of: ListUsers(), baseURL: stubBase, next: .linkHeader, policy: policy))
        #expect(refused.pages.count == 1)
        #expect((refused.error as? PaginationError)?.reason == .insecureDowngrade)
        #expect(stub.requestCount == 1)

        let allowing = Self.stub(pages)
        var executor = RequestExecutor(transport: allowing)
        executor.redirectPolicy.allowsInsecureDowngrade = true
        let followed = await Self.collect(
            executor.pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader, policy: policy))
        #expect(followed.error == nil)
        #expect(allowing.requests.map { $0.head.scheme } == ["https", "http"])
    }

    @Test("a link to a scheme other than http(s) is refused")
    func unsupportedScheme() async throws {
        let stub = Self.stub(["/v1/users": (1, "<file:///etc/passwd>; rel=next")])
        let (pages, error) = await Self.collect(
            RequestExecutor(transport: stub).pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader))
        #expect(pages.count == 1)
        #expect((error as? PaginationError)?.reason == .unsupportedScheme("file"))
        #expect(stub.requestCount == 1)
    }

    @Test("relative links resolve against the URL that answered")
    func relativeLinks() async throws {
        let stub = Self.stub([
            "/v1/users": (1, "<?page=2>; rel=next"),
            "/v1/users?page=2": (2, "<../v2/people?after=x%2Fy>; rel=next"),
            "/v2/people?after=x%2Fy": (3, "<more>; rel=next; anchor=\"/elsewhere\""),
        ])
        let (pages, error) = await Self.collect(
            RequestExecutor(transport: stub).pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader))
        #expect(error == nil)
        #expect(pages.map(\.number) == [1, 2, 3], "a link with an anchor is about another resource: not followed")
        #expect(stub.requests.map(\.head.path) == ["/v1/users", "/v1/users?page=2", "/v2/people?after=x%2Fy"])
        #expect(pages.last?.url?.absoluteString == "https://api.test/v2/people?after=x%2Fy")
    }

    @Test("every page takes send's road: plugins see each page, a redirect is followed, a 503 is retried")
    func oneRoad() async throws {
        struct Retrying: NetworkRequest {
            typealias Response = [User]
            var path: String { "/users" }
            var method: HTTPMethod { .get }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0, jitter: .none) }
        }
        let hits = Lock<[String: Int]>([:])
        let stub = StubTransport { request, _ in
            let path = request.head.path
            let hit = hits.withLock { counts in
                counts[path, default: 0] += 1
                return counts[path, default: 0]
            }
            switch path {
            case "/v1/users":
                return StubTransport.Reply.json(Self.users(1)).header("Link", "</v1/old?page=2>; rel=next")
            case "/v1/old?page=2": return .status(302, headers: ["Location": "/v1/users?page=2"])
            case "/v1/users?page=2" where hit == 1: return .status(503)
            case "/v1/users?page=2":
                return StubTransport.Reply.json(Self.users(2)).header("Link", "<?page=3>; rel=next")
            case "/v1/users?page=3": return .json(Self.users(3))
            default: return .status(404)
            }
        }
        let log = EventLog()
        var executor = RequestExecutor(transport: stub)
        executor.plugins = [HookRecorder(name: "p", priority: .normal, log: log)]
        let (pages, error) = await Self.collect(executor.pages(of: Retrying(), baseURL: stubBase, next: .linkHeader))
        #expect(error == nil)
        #expect(pages.map { $0.value.map(\.id) } == [[1], [2], [3]])
        #expect(pages[1].url?.absoluteString == "https://api.test/v1/users?page=2", "where the redirect led")
        #expect(pages[1].metrics.attempts > 1, "the 503 was retried")
        // A retry starts the page again from the link's URL, its redirect included, as `send` does.
        #expect(
            stub.requests.map(\.head.path) == [
                "/v1/users", "/v1/old?page=2", "/v1/users?page=2", "/v1/old?page=2", "/v1/users?page=2",
                "/v1/users?page=3",
            ])
        #expect(log.matching("didFinish:200").count == 3, "the plugin saw every page")
    }

    @Test("a page's failure ends the sequence with the error send would throw, after the pages before it")
    func failureEnds() async throws {
        let stub = Self.stub(["/v1/users": (1, "</v1/users?page=2>; rel=next")])
        let (pages, error) = await Self.collect(
            RequestExecutor(transport: stub).pages(of: ListUsers(), baseURL: stubBase, next: .linkHeader))
        #expect(pages.count == 1)
        #expect((error as? HTTPError)?.statusCode == 404)
    }

    @Test("NetworkManager's pages take the facade's road: base URL, token refresher, both ways of finding pages")
    func facade() async throws {
        let stub = Self.stub([
            "/v1/users": (1, "</v1/users?page=2>; rel=next"),
            "/v1/users?page=2": (2, nil),
        ])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        let (pages, error) = await Self.collect(manager.pages(of: ListUsers(), next: .linkHeader))
        #expect(error == nil)
        #expect(pages.map { $0.value.map(\.id) } == [[1], [2]])

        let cursorStub = StubTransport { request, _ in
            .json(request.head.query == nil ? #"{"users":[],"nextCursor":"b"}"# : #"{"users":[],"nextCursor":null}"#)
        }
        let cursorManager = NetworkManager(baseURL: stubBase, transport: cursorStub)
        let cursorPages = await Self.collect(
            cursorManager.pages(of: ListByCursor(), tokenProvider: { "t" }) { page in
                page.value.nextCursor.map { ListByCursor(cursor: $0) }
            })
        #expect(cursorPages.error == nil)
        #expect(cursorPages.pages.count == 2)
        #expect(cursorStub.requests.map { $0.value(forHeader: "Authorization") } == ["Bearer t", "Bearer t"])
    }
}
