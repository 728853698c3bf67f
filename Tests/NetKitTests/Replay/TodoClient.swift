import Foundation
import NetKit
import NetKitLock
import NetKitTesting
import Testing

/// Where the Todo API replay suite's fixtures are: `Fixtures/<Suite>/<Nested suite>/<test>.har` beside this file.
enum TodoFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
}

/// The Todo API client the replay suite tests: a `NetworkManager` over the running test's HAR fixture
/// (``HARFixture/current``), with the session that holds its tokens and a record of what it sent.
///
/// In a replay the client talks to `http://todo.test`, which is never contacted: the fixture answers, matched by
/// method, path and query. While a fixture records, it talks to ``TodoServer`` on 127.0.0.1.
struct TodoClient: Sendable {
    let manager: NetworkManager
    /// The tokens, and the refresher when the client was made with one.
    let session: TodoSession
    /// Every request the client handed to its transport, in order.
    let sent: SentRequests
    /// The fixture's transport.
    let fixture: HARFixtureTransport
    /// The API's origin.
    let baseURL: URL
    /// Another origin of the same server: a file host that must never get the API's credentials.
    let fileHost: URL

    /// Whether the test records its fixture now (against ``TodoServer``) rather than replaying it.
    var isRecording: Bool { fixture.isRecording }

    /// What a token the server hands out reads as on the client: itself while recording, the placeholder in a
    /// replay, since the fixture holds no credential.
    func received(_ secret: String) -> String {
        isRecording ? secret : HARRedaction.placeholder
    }

    /// `request` sent with the session's access token.
    func send<Request: Endpoint>(_ request: Request) async throws -> Request.Response {
        let session = session
        return try await manager.send(request, accessToken: { session.accessToken })
    }

    /// `request` sent with the session's access token, with its status, headers and metrics.
    func response<Request: Endpoint>(for request: Request) async throws -> NetworkResponse<Request.Response> {
        let session = session
        return try await manager.response(for: request, accessToken: { session.accessToken })
    }

    /// `request`'s body as it arrives, sent with the session's access token.
    func stream<Request: Endpoint>(_ request: Request) async throws -> StreamingResponse {
        let session = session
        return try await manager.stream(request, accessToken: { session.accessToken })
    }

    /// Injects `fault` into the first answer to a request for `path`, in a replay only (a recording must see the
    /// server as it is): `true` when it did.
    @discardableResult
    func injectOnce(_ fault: StubFault, intoFirst method: HTTPRequestMethod, _ path: String) -> Bool {
        guard case .replaying(let replay) = fixture.role else { return false }
        replay.fault(fault, when: .method(method), .path(path), times: 1)
        return true
    }
}

/// Makes the Todo client of the running test.
/// - Parameters:
///   - accessToken: The token the session starts with.
///   - refreshes: Whether the session refreshes the token on a 401 (as the manager's `tokenRefresher`).
///   - configure: Changes to the manager's configuration (headers, cache, cookies, plugins…).
/// - Throws: when the test has no fixture, or the server that records cannot start.
func todoClient(
    accessToken: String = TodoSecrets.accessToken,
    refreshes: Bool = false,
    configure: (inout NetworkConfiguration) -> Void = { _ in }
) throws -> TodoClient {
    let fixture = try #require(HARFixture.current, "the suite's .harFixtures trait gives every test a fixture")
    let baseURL: URL
    let fileHost: URL
    if fixture.isRecording {
        let server = try TodoServer.shared.get()
        baseURL = server.baseURL
        fileHost = server.otherOrigin
    } else {
        baseURL = URL(string: "http://todo.test")!
        fileHost = URL(string: "http://files.todo.test")!
    }
    let sent = SentRequests(fixture)
    var configuration = NetworkConfiguration(baseURL: baseURL)
    configuration.transport = sent
    configure(&configuration)
    let manager = NetworkManager(configuration: configuration)
    let session = TodoSession(accessToken: accessToken)
    if refreshes {
        session.manager = manager
        manager.tokenRefresher = session
    }
    return TodoClient(
        manager: manager, session: session, sent: sent, fixture: fixture, baseURL: baseURL, fileHost: fileHost)
}

/// The client's tokens, and its refresher: `POST /auth/refresh` with the refresh token.
final class TodoSession: TokenRefreshProvider, Sendable {
    private struct State {
        var accessToken: String
        var refreshToken: String
        var refreshes = 0
        var manager: NetworkManager?
    }

    private let state: Lock<State>

    init(accessToken: String, refreshToken: String = TodoSecrets.refreshToken) {
        state = Lock(State(accessToken: accessToken, refreshToken: refreshToken))
    }

    var accessToken: String { state.withLock { $0.accessToken } }

    var refreshToken: String {
        get { state.withLock { $0.refreshToken } }
        set { state.withLock { $0.refreshToken = newValue } }
    }

    /// How many refreshes ran.
    var refreshes: Int { state.withLock { $0.refreshes } }

    /// The manager a refresh is sent through (it holds the session as its refresher: a cycle a test can afford).
    var manager: NetworkManager? {
        get { state.withLock { $0.manager } }
        set { state.withLock { $0.manager = newValue } }
    }

    func refreshTokenIfNeeded() async throws {
        guard let manager else { throw NetworkError.unauthorized }
        state.withLock { $0.refreshes += 1 }
        let tokens = try await manager.send(TodoAPI.RefreshTokens(refreshToken: refreshToken), accessToken: nil)
        state.withLock { state in
            state.accessToken = tokens.accessToken
            state.refreshToken = tokens.refreshToken
        }
    }
}

/// A transport that keeps the head (and an in-memory body) of every request it passes on: what the client sent,
/// for assertions that hold in a replay as in a recording.
final class SentRequests: HTTPTransport {
    struct Sent: Sendable {
        var head: HTTPRequestHead
        var body: Data?

        var method: String { head.method.rawValue }
        var path: String { String(head.pathWithoutQuery) }
        var query: String? { head.query.map(String.init) }
        func header(_ name: String) -> String? { head.headerFields.value(for: name) }
    }

    private let base: any HTTPTransport
    private let requests = Lock<[Sent]>([])

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// Every request so far, in order.
    var all: [Sent] { requests.withLock { $0 } }

    /// The requests for `path` (without query), in order.
    func to(_ path: String) -> [Sent] { all.filter { $0.path == path } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        requests.withLock { $0.append(Sent(head: request.head, body: request.body?.inMemoryData)) }
        return try await base.send(request)
    }
}
