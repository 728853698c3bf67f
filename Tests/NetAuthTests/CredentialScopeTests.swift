import Foundation
import Testing
import NetAuth
import NetCore
import NetKitTesting

/// Requests to another origin than the base URL's (an avatar, a `next` link, a pre-signed URL) and redirects go
/// without the engine's credentials: the bearer token, plugins' keys, credential default headers.
@Suite("Credentials scoped to their origin")
struct CredentialScopeTests {
    /// A request to `url`, which names its own base URL, with a header and query item of its own.
    private struct Elsewhere: Endpoint {
        typealias Response = Data
        var url: URL
        var path: String { "/file" }
        var method: HTTPMethod { .get }
        var baseURL: URL? { url }
        var headers: [String: String]? { ["X-Own-Token": "own"] }
        var queryItems: [URLQueryItem]? { [URLQueryItem(name: "sig", value: "s1")] }
    }

    private func engine(_ stub: StubTransport, scope: CredentialScope = .baseURLOrigin) -> RequestExecutor {
        var executor = RequestExecutor(
            transport: stub,
            plugins: [
                TokenPlugin(.header(name: "X-Api-Key")) { "key" }, TokenPlugin(.queryItem(name: "api_key")) { "q" },
                BearerTokenPlugin { "plugin-token" },
            ])
        executor.builder.defaultHeaders = ["X-Tenant-Secret": "tenant"]
        executor.credentialFields = CredentialFields(headerNames: ["X-Tenant-Secret"], queryItemNames: ["sig"])
        executor.credentialScope = scope
        return executor
    }

    private func sent(_ stub: StubTransport) throws -> (fields: [String], query: String) {
        let head = try #require(stub.requests.last?.head)
        let names = ["Authorization", "X-Api-Key", "X-Tenant-Secret", "X-Own-Token"].map {
            "\($0)=\(head.headerFields.value(for: $0) ?? "-")"
        }
        return (names, String(head.query ?? ""))
    }

    @Test("a request to another origin keeps its own fields and loses every engine credential")
    func otherOrigin() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        let executor = engine(stub)
        _ = try await executor.send(
            Elsewhere(url: URL(string: "https://cdn.example.net")!), baseURL: authBase, accessToken: { "engine" })
        let (fields, query) = try sent(stub)
        #expect(fields == ["Authorization=-", "X-Api-Key=-", "X-Tenant-Secret=-", "X-Own-Token=own"])
        #expect(query == "sig=s1")
    }

    @Test("the base URL's origin gets every credential")
    func baseOrigin() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        _ = try await engine(stub).send(Elsewhere(url: authBase), baseURL: authBase, accessToken: { "engine" })
        let (fields, query) = try sent(stub)
        #expect(
            fields == [
                "Authorization=Bearer plugin-token", "X-Api-Key=key", "X-Tenant-Secret=tenant", "X-Own-Token=own",
            ])
        #expect(query == "sig=s1&api_key=q")
    }

    @Test("origins named in the scope get them too; anyOrigin restores 0.1's behaviour")
    func optIn() async throws {
        let other = URL(string: "https://uploads.example.net")!
        for scope in [CredentialScope.baseURLOrigin(and: [other]), .anyOrigin] {
            let stub = StubTransport { _, _ in .status(200) }
            _ = try await engine(stub, scope: scope).send(
                Elsewhere(url: other), baseURL: authBase, accessToken: { "engine" })
            let (fields, _) = try sent(stub)
            #expect(fields.contains("X-Api-Key=key") && fields.contains("X-Tenant-Secret=tenant"), "\(scope)")
        }
        // Another scheme or port is another origin.
        let stub = StubTransport { _, _ in .status(200) }
        _ = try await engine(stub, scope: .baseURLOrigin(and: [other])).send(
            Elsewhere(url: URL(string: "http://uploads.example.net")!), baseURL: authBase)
        #expect(try sent(stub).fields.contains("X-Api-Key=-"))
    }

    @Test("the engine's bearer token goes only to the base URL's origin, and a 401 elsewhere renews nothing")
    func bearerToken() async throws {
        let stub = StubTransport { request, _ in
            request.url?.host == "cdn.example.net" ? .status(401) : .status(200)
        }
        let executor = RequestExecutor(transport: stub)
        let renewals = RenewalCounter()
        await #expect(throws: NetworkError.unauthorized) {
            _ = try await executor.send(
                Elsewhere(url: URL(string: "https://cdn.example.net")!), baseURL: authBase, accessToken: { "t" },
                credentials: renewals)
        }
        #expect(stub.requests.map { $0.value(forHeader: "Authorization") } == [nil])
        #expect(await renewals.count == 0)
    }

    @Test("TokenPlugin declares its header or query item as a credential")
    func declarations() {
        #expect(TokenPlugin(.header(name: "X-Key")) { nil }.credentialFields.containsHeader("x-key"))
        #expect(TokenPlugin(.queryItem(name: "api key")) { nil }.credentialFields.containsQueryItem("api%20key"))
    }
}

/// Counts renewals.
private actor RenewalCounter: CredentialRecovery {
    var count = 0
    func generation() -> UInt64 { UInt64(count) }
    func recover(fromUnauthorizedAt generation: UInt64) async throws { count += 1 }
}
