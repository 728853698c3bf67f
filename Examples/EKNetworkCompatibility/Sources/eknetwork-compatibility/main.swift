// Runs the reference's examples and checks what they did; exits non-zero on the first surprise.
//
// Every file imports NetKit alone, as EKNetwork code does: on Linux the umbrella brings Foundation and
// FoundationNetworking (URLRequest, URLResponse, HTTPURLResponse) with it.
import NetKit

func check(_ condition: Bool, _ what: String) {
    guard condition else {
        print("FAILED: \(what)")
        exit(1)
    }
    print("ok: \(what)")
}

// The three initializers of the reference.
_ = NetworkManager(baseURL: { URL(string: "https://api.example.com")! })
_ = NetworkManager(baseURL: { AppSettings.shared.apiBaseURL })
_ = NetworkManager(baseURL: URL(string: "https://api.example.com")!)

let session = MockSession()
networkManager = NetworkManager(
    baseURL: { URL(string: "https://api.example.com")! },
    session: session,
    loggerSubsystem: "com.yourapp.networking",
    userAgentConfiguration: UserAgentConfiguration(appName: "Compat", appVersion: "1.0"),
    responseDecoderProvider: nil
)
let manager = networkManager!
manager.tokenRefresher = TokenManager()

// NetKit does not send a POST twice unless the request says it is safe (isIdempotent or an Idempotency-Key):
// the reference's sign-in fails with its 503 where EKNetwork would have signed in a second time.
do {
    _ = try await manager.send(
        SignInRequest(email: "user@example.com", password: "password"),
        accessToken: { TokenStore.shared.accessToken }
    )
    check(false, "a POST is not retried after a 503")
} catch let error as HTTPError {
    check(error.statusCode == 503 && session.signInAttempts == 1, "a POST is not retried after a 503")
}
let response = try await manager.send(
    SignInRequest(email: "user@example.com", password: "password"),
    accessToken: { TokenStore.shared.accessToken }
)
check(response.accessToken == "fresh", "send with a retry policy: the next sign-in succeeds")

TokenStore.shared.accessToken = "expired"
let deleted = try await manager.send(DeleteRequest(), accessToken: { TokenStore.shared.accessToken })
check(deleted == EmptyResponse(), "401 → TokenManager refresh → retry → EmptyResponse")
check(TokenStore.shared.accessToken == "fresh", "the refresher stored the new token")

let updated = try await manager.send(UpdateRequest(), accessToken: { TokenStore.shared.accessToken })
check(updated.statusCode == 204 && updated.value(forHeader: "X-Custom") == "put", "StatusCodeResponse")

let custom = try await manager.send(CustomRequest(), accessToken: { TokenStore.shared.accessToken })
check(custom.status == 200 && custom.customHeader == "head", "custom emptyResponseHandler")

let progress = NetworkProgress()
_ = try await manager.send(UploadRequest(progress: progress), accessToken: nil)
check(progress.fractionCompleted == 1.0, "multipart upload with progress")

var form = MultipartFormData()
form.addPart(name: "file", data: Data("x".utf8), mimeType: "text/plain", filename: "a.txt")
check(form.encodedData() != nil && form.parts.count == 1 && !form.boundary.isEmpty, "MultipartFormData API")

let policy = RetryPolicy(maxRetryCount: 3, delay: 1.0)
check(
    policy.maxRetryCount == 3 && policy.delay == 1.0 && !policy.shouldRetry(BusinessError()),
    "RetryPolicy and NonRetriableError")
check(
    !policy.shouldRetry(NetworkError.unauthorized) && !policy.shouldRetry(URLError(.userAuthenticationRequired)),
    "RetryPolicy defaults")

let error = HTTPError(statusCode: 500, data: Data(), headers: [:])
check(error.errorDescription == "Request failed with status code 500", "HTTPError")

let agent = UserAgentConfiguration(appName: "Compat", appVersion: "1.0").generateUserAgentString()
check(agent.hasPrefix("Compat/1.0 (") && agent.contains("NetKit/"), "UserAgentConfiguration: \(agent)")

let mock: NetworkManaging = MockNetworkManager()
do {
    _ = try await mock.send(DeleteRequest(), accessToken: nil)
    check(false, "the mock throws")
} catch {
    check(error as? NetworkError == .invalidResponse, "NetworkManaging mock")
}

let methods: [HTTPMethod] = [.get, .post, .put, .delete, .patch, .head, .options, .trace, .connect]
check(
    methods.map(\.rawValue) == ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT"],
    "HTTPMethod")
check(session.requests.count == 8, "requests sent: \(session.requests)")

// Streaming, with the reference's mock streaming session.
let streamingSession = MockStreamingSession()
let streamer = NetworkManager(
    baseURL: { URL(string: "https://api.example.com")! },
    session: MockSession(),
    streamingSession: streamingSession
)
let searchResponse = try await streamer.stream(
    PlayerSearchRequest(query: "Bobr"),
    accessToken: { TokenStore.shared.accessToken }
)
var names: [String] = []
for try await item in searchResponse.ndjson(as: SearchEvent.self) {
    handle(item, into: &names)  // render incrementally as items arrive
    if case .end = item { break }
}
check(names == ["Bobr", "Bobrova"], "stream: NDJSON records in order")
let searchHead = streamingSession.requests.first
check(
    searchHead?.url?.query == "q=Bobr&stream=true"
        && searchHead?.value(forHTTPHeaderField: "X-Device-ID") == "compat-device"
        && searchHead?.value(forHTTPHeaderField: "Authorization") == "Bearer fresh",
    "stream: the same request road as send")

let eventsResponse = try await streamer.stream(MyEventsRequest(), accessToken: nil)
var payloads: [String] = []
for try await line in eventsResponse.lines() {
    guard line.hasPrefix("data:") else { continue }
    let payload = line.dropFirst("data:".count).trimmingCharacters(in: .whitespaces)
    process(payload, into: &payloads)
}
check(payloads == ["first", "second"], "stream: lines(), CRLF-aware, blank lines skipped")
let streamingMock: NetworkStreaming = streamer
check(streamingMock === streamer, "NetworkStreaming")
print("All EKNetwork reference examples ran.")
