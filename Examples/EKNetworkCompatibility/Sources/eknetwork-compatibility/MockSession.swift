import NetKit

/// The `URLSessionProtocol` mock an EKNetwork user's tests would pass as `session:`; it plays the API.
///
/// `@unchecked Sendable`, as a Swift 5 era mock would be: both stored properties are read and written only
/// inside `lock.withLock`.
final class MockSession: URLSessionProtocol, @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    private var busy = true

    var requests: [String] { lock.withLock { log } }
    var signInAttempts: Int { requests.filter { $0 == "POST /auth/sign-in" }.count }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let method = request.httpMethod ?? "GET"
        let path = request.url?.path ?? ""
        let line = "\(method) \(path)"
        let firstSignIn: Bool = lock.withLock {
            log.append(line)
            defer { if path == "/auth/sign-in" { busy = false } }
            return path == "/auth/sign-in" && busy
        }
        func reply(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> (Data, URLResponse) {
            (
                Data(body.utf8),
                HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            )
        }
        let authorized = request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
        switch (method, path) {
        case ("POST", "/auth/sign-in"):
            return firstSignIn ? reply(503) : reply(200, #"{"accessToken":"fresh"}"#)
        case ("POST", "/auth/refresh"):
            return reply(200, #"{"accessToken":"fresh"}"#)
        case (_, "/items/1") where !authorized:
            return reply(401)
        case ("DELETE", "/items/1"):
            return reply(204)
        case ("PUT", "/items/1"):
            return reply(204, headers: ["X-Custom": "put"])
        case ("HEAD", "/items/1"):
            return reply(200, headers: ["X-Custom": "head"])
        case ("POST", "/upload"):
            let type = request.value(forHTTPHeaderField: "Content-Type") ?? ""
            return reply(type.hasPrefix("multipart/form-data; boundary=") ? 201 : 400)
        default:
            return reply(404)
        }
    }
}
