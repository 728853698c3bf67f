// Code from the EKNetwork API reference, as written there; only the types the examples leave to the reader
// (requests' response models, TokenStore, AppSettings) are filled in.
import NetKit

// MARK: Types the reference's examples assume

struct SignInResponse: Decodable { let accessToken: String }
struct RefreshTokenResponse: Decodable { let accessToken: String }
struct MyCustomResponse: Decodable {
    let status: Int
    let customHeader: String?
}

final class TokenStore {
    static let shared = TokenStore()
    var accessToken: String? = "expired"
    var refreshToken = "refresh-1"
}

final class AppSettings {
    static let shared = AppSettings()
    var apiBaseURL = URL(string: "https://api.example.com")!
}

struct SignInRequest: NetworkRequest {
    typealias Response = SignInResponse
    let email: String
    let password: String
    var path: String { "/auth/sign-in" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(encodable: ["email": email, "password": password]) }
    var retryPolicy: RetryPolicy {
        RetryPolicy(
            maxRetryCount: 2, delay: 0.01,
            shouldRetry: { error in
                if case NetworkError.unauthorized = error { return false }
                return !(error is NonRetriableError)
            })
    }
}

struct RefreshTokenRequest: NetworkRequest {
    typealias Response = RefreshTokenResponse
    let refreshToken: String
    var path: String { "/auth/refresh" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { RequestBody(formURLEncoded: ["refresh_token": refreshToken]) }
}

// MARK: Empty responses, from "Choosing the right approach for empty responses"

struct DeleteRequest: NetworkRequest {
    typealias Response = EmptyResponse
    // emptyResponseHandler is automatically provided
    var path: String { "/items/1" }
    var method: HTTPMethod { .delete }
}

struct UpdateRequest: NetworkRequest {
    typealias Response = StatusCodeResponse
    // emptyResponseHandler automatically extracts status code and headers
    var path: String { "/items/1" }
    var method: HTTPMethod { .put }
}

struct CustomRequest: NetworkRequest {
    typealias Response = MyCustomResponse
    var path: String { "/items/1" }
    var method: HTTPMethod { .head }

    var emptyResponseHandler: ((HTTPURLResponse) throws -> MyCustomResponse)? {
        { response in
            MyCustomResponse(
                status: response.statusCode,
                customHeader: response.value(forHTTPHeaderField: "X-Custom")
            )
        }
    }
}

// MARK: Token refresh, from "TokenRefreshProvider"

var networkManager: NetworkManager!

class TokenManager: TokenRefreshProvider {
    func refreshTokenIfNeeded() async throws {
        let refreshRequest = RefreshTokenRequest(
            refreshToken: TokenStore.shared.refreshToken
        )
        let response = try await networkManager.send(refreshRequest, accessToken: nil)
        TokenStore.shared.accessToken = response.accessToken
    }
}

// MARK: Multipart, from "MultipartFormData"

struct UploadRequest: NetworkRequest {
    typealias Response = EmptyResponse
    let progress: NetworkProgress?
    var path: String { "/upload" }
    var method: HTTPMethod { .post }
    var multipartData: MultipartFormData? {
        var form = MultipartFormData()
        form.addPart(name: "avatar", data: Data([1, 2, 3]), mimeType: "image/png", filename: "me.png")
        form.addPart(name: "caption", data: Data("hello".utf8), mimeType: "text/plain")
        return form
    }
}

// MARK: Errors

struct BusinessError: NonRetriableError {}

// MARK: Protocol abstractions

final class MockNetworkManager: NetworkManaging {
    var tokenRefresher: TokenRefreshProvider?
    func send<T: NetworkRequest>(_ request: T, accessToken: (() -> String?)?) async throws -> T.Response {
        throw NetworkError.invalidResponse
    }
}
