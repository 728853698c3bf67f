import Foundation
import Testing
import NetKit
import NetKitTesting

/// A user with a two-word key, to tell a snake_case coder from a plain one.
private struct Profile: Codable, Equatable, Sendable {
    let displayName: String
}

/// Sends and receives a ``Profile`` with the configuration's coders: implements neither `jsonEncoder` nor `jsonDecoder`.
private struct PostProfile: NetworkRequest {
    typealias Response = Profile
    var path: String { "/profiles" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(encodable: Profile(displayName: "Ann Lee")) }
}

/// The same request with coders of its own, which win over the configuration's.
private struct PostProfileOwnCoders: NetworkRequest {
    typealias Response = Profile
    var allowsOverride = true
    var path: String { "/profiles" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(encodable: Profile(displayName: "Ann Lee")) }
    var jsonEncoder: JSONEncoder { JSONEncoder() }
    var jsonDecoder: JSONDecoder { JSONDecoder() }
    var allowsResponseDecoderOverride: Bool { allowsOverride }
}

/// An `Endpoint` (not a `NetworkRequest`) that keeps every default.
private struct FetchProfile: Endpoint {
    typealias Response = Profile
    var path: String { "/profile" }
    var method: HTTPMethod { .get }
}

/// A request that names its own retry policy of no retries.
private struct FetchProfileNoRetry: Endpoint {
    typealias Response = Profile
    var path: String { "/profile" }
    var method: HTTPMethod { .get }
    var retryPolicy: RetryPolicy { RetryPolicy() }
}

/// A request to another host than the manager's.
private struct FetchElsewhere: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/status" }
    var method: HTTPMethod { .get }
    var baseURL: URL? { URL(string: "https://status.example.org/v9") }
    var headers: [String: String]? { ["x-client": "own"] }
}

private func snakeCaseConfiguration(_ transport: any HTTPTransport) -> NetworkConfiguration {
    var configuration = NetworkConfiguration(baseURL: stubBase)
    configuration.transport = transport
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    configuration.defaultEncoder = encoder
    configuration.defaultDecoder = decoder
    return configuration
}

@Suite("NetworkConfiguration")
struct NetworkConfigurationTests {
    @Test("init(baseURL:) leaves every other setting at a new manager's default")
    func defaults() {
        let configuration = NetworkConfiguration(baseURL: stubBase)
        let manager = NetworkManager(baseURL: stubBase)
        #expect(configuration.baseURL == stubBase)
        #expect(configuration.transport is URLSessionTransport)
        #expect(configuration.defaultHeaders.isEmpty)
        #expect(configuration.plugins.isEmpty)
        #expect(configuration.defaultRetryPolicy == nil)
        #expect(configuration.defaultTimeout == nil)
        #expect(configuration.responseLimit == manager.responseLimit)
        #expect(configuration.errorPayloadLimit == manager.errorPayloadLimit)
        #expect(configuration.userAgentConfiguration == nil)
        #expect(configuration.tokenRefresher == nil)
        #expect(configuration.tokenRefreshPolicy == manager.tokenRefreshPolicy)
        #expect(!configuration.holdsRequestsDuringRefresh)
        #expect(configuration.responseCache == nil)
        #expect(configuration.cookieJar == nil)
        #expect(!configuration.coalescesIdenticalRequests)
        #expect(configuration.logging.logger.subsystem == NetworkLogger.placeholderSubsystem)
    }

    @Test("every setting reaches the manager, and configuration reads them back")
    func roundTrip() {
        var configuration = NetworkConfiguration(baseURL: stubBase)
        let stub = StubTransport(replies: [])
        let cache = ResponseCache(maximumBytes: 1 << 20)
        let jar = CookieJar()
        let refresher = CountingRefresher()
        configuration.transport = stub
        configuration.defaultHeaders = ["X-Client": "ios"]
        configuration.defaultRetryPolicy = RetryPolicy(maxRetryCount: 2, delay: 0.5)
        configuration.defaultTimeout = .seconds(12)
        configuration.responseLimit = 1000
        configuration.errorPayloadLimit = 100
        configuration.userAgentConfiguration = UserAgentConfiguration(appName: "Demo", appVersion: "2")
        configuration.tokenRefresher = refresher
        configuration.tokenRefreshPolicy = TokenRefreshPolicy(maxRefreshes: 7, interval: .seconds(30))
        configuration.holdsRequestsDuringRefresh = true
        configuration.responseCache = cache
        configuration.cookieJar = jar
        configuration.coalescesIdenticalRequests = true
        configuration.redirectPolicy = RedirectPolicy(maximumHops: 3, refusesPrivateAddresses: true)
        configuration.credentialScope = .anyOrigin
        configuration.credentialFields = .header("X-Key")
        let manager = NetworkManager(configuration: configuration)
        #expect(manager.baseURL() == stubBase)
        #expect(manager.defaultHeaders == ["X-Client": "ios"])
        #expect(manager.defaultRetryPolicy?.maxRetryCount == 2)
        #expect(manager.defaultTimeout == .seconds(12))
        #expect(manager.responseLimit == 1000)
        #expect(manager.errorPayloadLimit == 100)
        #expect(manager.userAgentConfiguration?.appName == "Demo")
        #expect(manager.tokenRefresher === refresher)
        #expect(manager.tokenRefreshPolicy == TokenRefreshPolicy(maxRefreshes: 7, interval: .seconds(30)))
        #expect(manager.holdsRequestsDuringRefresh)
        #expect(manager.responseCache === cache)
        #expect(manager.cookieJar === jar)
        #expect(manager.coalescesIdenticalRequests)
        #expect(manager.redirectPolicy.maximumHops == 3 && manager.redirectPolicy.refusesPrivateAddresses)
        #expect(manager.credentialScope == .anyOrigin)
        #expect(manager.credentialFields == .header("X-Key"))
        #expect(manager.defaultDecoder === configuration.defaultDecoder)
        #expect(manager.defaultEncoder === configuration.defaultEncoder)

        let back = manager.configuration
        #expect(back.baseURL == stubBase)
        #expect((back.transport as? StubTransport) === stub)
        #expect(back.defaultHeaders == ["X-Client": "ios"])
        #expect(back.defaultRetryPolicy?.delay == 0.5)
        #expect(back.defaultTimeout == .seconds(12))
        #expect(back.responseLimit == 1000)
        #expect(back.errorPayloadLimit == 100)
        #expect(back.tokenRefresher === refresher)
        #expect(back.holdsRequestsDuringRefresh)
        #expect(back.responseCache === cache)
        #expect(back.cookieJar === jar)
        #expect(back.coalescesIdenticalRequests)
        #expect(back.redirectPolicy.maximumHops == 3 && back.credentialScope == .anyOrigin)
        #expect(back.credentialFields == .header("X-Key"))
        #expect(back.defaultDecoder === configuration.defaultDecoder)
    }

    @Test("default headers go with every request unless it sets the same name; Content-Type stays the request's")
    func defaultHeaders() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        var configuration = NetworkConfiguration(baseURL: stubBase)
        configuration.transport = stub
        configuration.defaultHeaders = [
            "X-Client": "default", "Accept": "application/vnd.api+json", "Content-Type": "text/plain", "X-Trace": "t",
        ]
        let manager = NetworkManager(configuration: configuration)
        _ = try await manager.send(DeleteUser())
        _ = try await manager.send(FetchElsewhere())
        let first = try #require(stub.requests.first)
        #expect(first.head.headerFields.values(for: "X-Client") == ["default"])
        #expect(first.head.headerFields.values(for: "Accept") == ["application/vnd.api+json"])
        #expect(first.value(forHeader: "Content-Type") == "application/json")
        #expect(first.value(forHeader: "X-Trace") == "t")
        let second = try #require(stub.requests.last)
        #expect(second.head.headerFields.values(for: "X-Client") == ["own"])
        #expect(second.value(forHeader: "X-Trace") == "t")
    }

    @Test(
        "the manager's token and credential default headers stay with the base URL's origin unless the scope says more")
    func credentialScope() async throws {
        for scope in [CredentialScope.baseURLOrigin, .anyOrigin] {
            let stub = StubTransport { _, _ in .status(204) }
            var configuration = NetworkConfiguration(baseURL: stubBase)
            configuration.transport = stub
            configuration.defaultHeaders = ["X-Key": "secret"]
            configuration.credentialFields = .header("X-Key")
            configuration.credentialScope = scope
            let manager = NetworkManager(configuration: configuration)
            _ = try await manager.send(FetchElsewhere(), accessToken: { "token" })
            _ = try await manager.send(DeleteUser(), accessToken: { "token" })
            let (elsewhere, home) = (try #require(stub.requests.first), try #require(stub.requests.last))
            let expected: String? = scope == .anyOrigin ? "Bearer token" : nil
            #expect(elsewhere.value(forHeader: "Authorization") == expected)
            #expect(elsewhere.value(forHeader: "X-Key") == (scope == .anyOrigin ? "secret" : nil))
            #expect(elsewhere.value(forHeader: "x-client") == "own")
            #expect(
                home.value(forHeader: "Authorization") == "Bearer token" && home.value(forHeader: "X-Key") == "secret")
        }
    }

    @Test("default headers follow the request's own, in name order, before NetKit's Accept")
    func defaultHeaderOrder() throws {
        struct Own: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "/x" }
            var method: HTTPMethod { .get }
            var headers: [String: String]? { ["X-Own": "1"] }
        }
        let builder = RequestBuilder(defaultHeaders: ["X-B": "2", "X-A": "1", "x-own": "default"])
        let built = try builder.makeRequest(Own(), baseURL: stubBase)
        #expect(built.head.headerFields.map(\.name) == ["Content-Type", "X-Own", "X-A", "X-B", "Accept"])
        #expect(built.value(forHeader: "X-Own") == "1")
    }

    @Test(
        "an invalid default header fails every request before anything is sent",
        arguments: [
            ["X-Bad": "a\r\nInjected: 1"], ["X-Bad\n": "a"], ["Transfer-Encoding": "chunked"],
        ])
    func invalidDefaultHeader(headers: [String: String]) async throws {
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.defaultHeaders = headers
        await #expect(throws: NetworkError.self) { try await manager.send(DeleteUser()) }
        #expect(stub.requestCount == 0)
    }

    @Test("the configuration's encoder and decoder serve requests that name none")
    func defaultCoders() async throws {
        let stub = StubTransport { _, _ in .json(#"{"display_name":"Bo"}"#) }
        let manager = NetworkManager(configuration: snakeCaseConfiguration(stub))
        #expect(try await manager.send(PostProfile()) == Profile(displayName: "Bo"))
        #expect(try await manager.send(FetchProfile()) == Profile(displayName: "Bo"))
        let body = try #require(stub.requests.first?.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"display_name":"Ann Lee"}"#)
    }

    @Test("a request's own encoder and decoder win over the configuration's")
    func ownCodersWin() async throws {
        let stub = StubTransport { _, _ in .json(#"{"displayName":"Bo"}"#) }
        let manager = NetworkManager(configuration: snakeCaseConfiguration(stub))
        #expect(try await manager.send(PostProfileOwnCoders()) == Profile(displayName: "Bo"))
        let body = try #require(stub.requests.first?.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"displayName":"Ann Lee"}"#)
    }

    @Test("EKNetwork's responseDecoderProvider still comes first, unless the request opts out")
    func providerStillFirst() async throws {
        let stub = StubTransport { _, _ in .json(#"{"display_name":"Bo"}"#) }
        let manager = NetworkManager(configuration: PlainConfiguration.make(stub))
        manager.responseDecoderProvider = {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        #expect(try await manager.send(PostProfileOwnCoders()) == Profile(displayName: "Bo"))
        await #expect(throws: DecodingError.self) {
            try await manager.send(PostProfileOwnCoders(allowsOverride: false))
        }
    }

    @Test("the configuration's coders apply to a manager built with EKNetwork's initializer when set on it")
    func codersOnManager() async throws {
        let stub = StubTransport { _, _ in .json(#"{"display_name":"Bo"}"#) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        await #expect(throws: DecodingError.self) { try await manager.send(FetchProfile()) }
        manager.defaultDecoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try await manager.send(FetchProfile()) == Profile(displayName: "Bo"))
    }

    @Test("the configuration's retry policy serves requests that name none; a request's own policy wins")
    func defaultRetryPolicy() async throws {
        let stub = StubTransport { _, index in index % 2 == 0 ? .status(503) : .json(#"{"displayName":"Bo"}"#) }
        var configuration = NetworkConfiguration(baseURL: stubBase)
        configuration.transport = stub
        configuration.defaultRetryPolicy = RetryPolicy(maxRetryCount: 1, delay: 0)
        let manager = NetworkManager(configuration: configuration)
        #expect(try await manager.send(FetchProfile()) == Profile(displayName: "Bo"))
        #expect(stub.requestCount == 2)
        await #expect(throws: HTTPError.self) { try await manager.send(FetchProfileNoRetry()) }
        #expect(stub.requestCount == 3)
    }

    @Test("the configuration's timeout bounds requests that name none")
    func defaultTimeout() async throws {
        let stub = StubTransport { _, _ in StubTransport.Reply.status(204).delayed(by: .seconds(600)) }
        var configuration = NetworkConfiguration(baseURL: stubBase)
        configuration.transport = stub
        configuration.defaultTimeout = .milliseconds(50)
        let manager = NetworkManager(configuration: configuration)
        await #expect(throws: URLError.self) { try await manager.send(DeleteUser()) }
    }

    @Test("the configuration's plugins run on every request")
    func plugins() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        var configuration = NetworkConfiguration(baseURL: stubBase)
        configuration.transport = stub
        configuration.plugins = [
            InterceptorPlugin(request: { request in
                var request = request
                try request.setHeader("X-Tenant", "acme")
                return request
            })
        ]
        _ = try await NetworkManager(configuration: configuration).send(DeleteUser())
        #expect(stub.requests.first?.value(forHeader: "X-Tenant") == "acme")
    }

    @Test("the configuration's error model turns failed (and, when asked, successful) error bodies into ServerError")
    func errorModel() async throws {
        let stub = StubTransport(replies: [
            .json(#"{"message":"taken"}"#, status: 409),
            .json(#"{"message":"quota"}"#),
        ])
        var configuration = NetworkConfiguration(baseURL: stubBase)
        configuration.transport = stub
        configuration.errorModel = APIError.self
        configuration.decodesErrorModelOnSuccess = true
        let manager = NetworkManager(configuration: configuration)
        #expect(manager.errorModel == APIError.self)
        #expect(manager.configuration.decodesErrorModelOnSuccess)
        let failure = await #expect(throws: ServerError.self) { try await manager.send(FetchProfile()) }
        #expect(failure?.statusCode == 409)
        #expect(failure?.model(as: APIError.self) == APIError(message: "taken"))
        let success = await #expect(throws: ServerError.self) { try await manager.send(FetchProfile()) }
        #expect(success?.statusCode == 200)
        #expect(success?.model(as: APIError.self) == APIError(message: "quota"))
    }

    @Test("a request's own base URL replaces the manager's")
    func ownBaseURL() async throws {
        let stub = StubTransport { _, _ in .status(204) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        _ = try await manager.send(FetchElsewhere())
        #expect(stub.requests.first?.url?.absoluteString == "https://status.example.org/v9/status")
    }

    @Test("with defaults bound, a @MainActor token closure is still read on the main actor")
    @MainActor
    func callerIsolationKept() async throws {
        let store = MainActorTokenStore()
        let stub = StubTransport { _, _ in .json(#"{"display_name":"Bo"}"#) }
        let manager = NetworkManager(configuration: snakeCaseConfiguration(stub))
        let profile = try await manager.send(FetchProfile(), accessToken: { store.read() })
        #expect(profile == Profile(displayName: "Bo"))
        #expect(store.reads == 1)
    }

    @Test("stream takes the configuration's default headers and encoder too")
    func streamUsesDefaults() async throws {
        let stub = StubTransport { _, _ in .json("{}") }
        var configuration = snakeCaseConfiguration(stub)
        configuration.defaultHeaders = ["X-Client": "ios"]
        let manager = NetworkManager(configuration: configuration)
        let response = try await manager.stream(PostProfile())
        for try await _ in response.bytes {}
        let request = try #require(stub.requests.first)
        #expect(request.value(forHeader: "X-Client") == "ios")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"display_name":"Ann Lee"}"#)
    }
}

/// A configuration over `transport` with plain coders.
private enum PlainConfiguration {
    static func make(_ transport: any HTTPTransport) -> NetworkConfiguration {
        var configuration = NetworkConfiguration(baseURL: stubBase)
        configuration.transport = transport
        return configuration
    }
}
