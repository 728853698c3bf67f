import Foundation
import NetKitLock
import Testing
import NetAuth
import NetCore
import NetKitTesting

let authBase = URL(string: "https://auth.test/api")!

/// An engine over `transport` with `plugins`, as a NetCore user without NetworkManager builds one.
func engine(_ transport: StubTransport, _ plugins: [any Plugin]) -> RequestExecutor {
    RequestExecutor(transport: transport, plugins: plugins)
}

@Suite("Auth plugins without NetworkManager")
struct AuthPluginTests {
    @Test("bearer token read before every request; none when nil")
    func bearer() async throws {
        let token = Lock<String?>("one")
        let stub = StubTransport { _, _ in .status(200) }
        let executor = engine(stub, [BearerTokenPlugin { token.withLock { $0 } }])
        _ = try await executor.send(Ping(), baseURL: authBase)
        token.withLock { $0 = nil }
        _ = try await executor.send(Ping(), baseURL: authBase)
        #expect(stub.requests.map { $0.value(forHeader: "Authorization") } == ["Bearer one", nil])
    }

    @Test("Basic authentication encodes user:password in base64 and refuses a colon in the user")
    func basic() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        _ = try await engine(stub, [try BasicAuthenticationPlugin(username: "Aladdin", password: "open sesame")]).send(
            Ping(), baseURL: authBase)
        #expect(stub.requests.first?.value(forHeader: "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(throws: BasicAuthenticationPlugin.InvalidCredentials()) {
            try BasicAuthenticationPlugin(username: "a:b", password: "c")
        }
        #expect(throws: BasicAuthenticationPlugin.InvalidCredentials()) {
            try BasicAuthenticationPlugin(username: "a", password: "c\r\n")
        }
    }

    @Test("a custom token goes into a header or replaces a query item")
    func customToken() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        let header = TokenPlugin(.header(name: "X-API-Key", prefix: "Key ")) { "k1" }
        let query = TokenPlugin(.queryItem(name: "access_token")) { "a b&c" }
        let signed = URL(string: "https://auth.test/api?access_token=old&page=2")!
        _ = try await engine(stub, [header, query]).send(Ping(), baseURL: signed)
        let sent = try #require(stub.requests.first)
        #expect(sent.head.headerFields.value(for: "X-API-Key") == "Key k1")
        #expect(sent.head.query == "page=2&access_token=a%20b%26c")
    }

    @Test("a header token with CR/LF is refused")
    func injectedToken() async throws {
        let stub = StubTransport { _, _ in .status(200) }
        await #expect(throws: NetworkError.invalidHeader(name: "X-API-Key")) {
            _ = try await engine(stub, [TokenPlugin(.header(name: "X-API-Key")) { "a\r\nb" }]).send(
                Ping(), baseURL: authBase)
        }
        #expect(stub.requestCount == 0)
    }
}

/// An OAuth-style authenticator whose server accepts only the newest access token.
struct TestOAuth: Authenticator {
    struct Credential: Sendable, Equatable {
        var access: String
        var refresh: String
    }

    let refreshes = Counter()
    let failure: (any Error)?
    /// When set, a refresh waits until the stream finishes (the test opens it).
    var gate: AsyncStream<Void>? = nil

    func apply(_ credential: Credential, to request: inout TransportRequest) throws {
        try request.setHeader("Authorization", "Bearer \(credential.access)")
    }

    func refresh(_ credential: Credential) async throws -> Credential {
        let number = refreshes.increment()
        if let gate { for await _ in gate {} }
        if let failure { throw failure }
        return Credential(access: "access-\(number)", refresh: "refresh-\(number)")
    }

    func isRequest(_ request: TransportRequest, authenticatedWith credential: Credential) -> Bool {
        request.value(forHeader: "Authorization") == "Bearer \(credential.access)"
    }
}

final class Counter: Sendable {
    private let value = Lock(0)
    func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
    var current: Int { value.withLock { $0 } }
}

@Suite("AuthenticatorCredentials through the engine")
struct AuthenticatorCredentialsTests {
    /// Accepts only the access token the authenticator issued last.
    func server(_ oauth: TestOAuth) -> StubTransport {
        StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Bearer access-\(oauth.refreshes.current)"
                && oauth.refreshes.current > 0
                ? .status(200) : .status(401)
        }
    }

    @Test("50 concurrent rejections join one refresh in flight and all succeed")
    func singleFlight() async throws {
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let oauth = TestOAuth(failure: nil, gate: gate)
        let credentials = AuthenticatorCredentials(
            authenticator: oauth, credential: .init(access: "old", refresh: "r0"))
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        await credentials.refreshCoordinator.setWaitingCountObserver { report.yield($0) }
        let executor = RequestExecutor(transport: server(oauth))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await executor.response(for: Ping(), baseURL: authBase, credentials: credentials).value
                        .statusCode
                }
            }
            for await count in counts where count == 50 { break }
            open.finish()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 50))
        #expect(oauth.refreshes.current == 1)
        #expect(credentials.credential == .init(access: "access-1", refresh: "refresh-1"))
    }

    @Test("a request rejected with a credential that was replaced meanwhile retries without a refresh")
    func staleCredential() async throws {
        let oauth = TestOAuth(failure: nil)
        let credentials = AuthenticatorCredentials(
            authenticator: oauth, credential: .init(access: "old", refresh: "r0"))
        // A refresh finishes while the first request is out: its 401 is for a credential already replaced.
        let stub = StubTransport { request, index in
            if index == 0 {
                try await credentials.refreshCoordinator.recover(fromUnauthorizedAt: 0)
                return .status(401)
            }
            return request.value(forHeader: "Authorization") == "Bearer access-1" ? .status(200) : .status(401)
        }
        let response = try await RequestExecutor(transport: stub).response(
            for: Ping(), baseURL: authBase, credentials: credentials)
        #expect(response.statusCode == 200)
        #expect(oauth.refreshes.current == 1)
        #expect(stub.requestCount == 2)
    }

    @Test("a failed refresh fails every waiting request, none retries")
    func failedRefresh() async throws {
        struct Revoked: Error, Equatable {}
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let oauth = TestOAuth(failure: Revoked(), gate: gate)
        let credentials = AuthenticatorCredentials(
            authenticator: oauth, credential: .init(access: "old", refresh: "r0"))
        let (counts, report) = AsyncStream.makeStream(of: Int.self)
        await credentials.refreshCoordinator.setWaitingCountObserver { report.yield($0) }
        let stub = server(oauth)
        let executor = RequestExecutor(transport: stub)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await executor.response(for: Ping(), baseURL: authBase, credentials: credentials)
                        return false
                    } catch {
                        return error is Revoked
                    }
                }
            }
            for await count in counts where count == 20 { break }
            open.finish()
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == 20)
        #expect(oauth.refreshes.current == 1)
        #expect(stub.requestCount == 20)
    }

    @Test("a custom rejection (403) renews the credential too")
    func customRejection() async throws {
        struct Strict: Authenticator {
            let refreshes = Counter()
            func apply(_ credential: String, to request: inout TransportRequest) throws {
                try request.setHeader("Authorization", "Token \(credential)")
            }
            func refresh(_ credential: String) async throws -> String { "t\(refreshes.increment())" }
            func isAuthenticationFailure(_ response: HTTPResponseHead) -> Bool { response.statusCode == 403 }
        }
        let stub = StubTransport { request, _ in
            request.value(forHeader: "Authorization") == "Token t1" ? .status(200) : .status(403)
        }
        let credentials = AuthenticatorCredentials(authenticator: Strict(), credential: "t0")
        let response = try await RequestExecutor(transport: stub).response(
            for: Ping(), baseURL: authBase, credentials: credentials)
        #expect(response.statusCode == 200)
        #expect(stub.requests.map { $0.value(forHeader: "Authorization") } == ["Token t0", "Token t1"])
    }
}
