// netkit-core-example: a program on NetCore, NetAuth, NetMultipart and NetStreaming with a transport of its own.
//
// Nothing here names URLSession, so the binary links no FoundationNetworking and needs no libcurl: CI runs it and
// reads its dynamic libraries (`.ci/link-check`).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetAuth
import NetCore
import NetMultipart
import NetStreaming

/// Answers every request in memory: the request's method and path as JSON, a cookie twice.
struct EchoTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let body = #"{"method":"\#(request.method.rawValue)","path":"\#(request.head.path)"}"#
        let fields = try HTTPHeaderFields([
            ("Content-Type", "application/json"),
            ("Set-Cookie", "a=1; Path=/"),
            ("Set-Cookie", "b=2; Path=/"),
        ])
        return TransportResponse(
            head: HTTPResponseHead(statusCode: 200, reasonPhrase: "OK", headerFields: fields),
            body: ResponseBody(data: Data(body.utf8))
        )
    }
}

struct Echo: Decodable, Sendable {
    let method: String
    let path: String
}

struct GetEcho: Endpoint {
    typealias Response = Echo
    var path: String { "/echo" }
    var method: HTTPMethod { .get }
}

struct PostForm: Endpoint {
    typealias Response = Echo
    var path: String { "/forms" }
    var method: HTTPMethod { .post }
    var body: RequestBody? {
        var form = MultipartFormData()
        form.addField(name: "title", value: "report")
        return try? RequestBody(multipart: form)
    }
}

/// Ends the program with a failure status: the answers were not what the transport sent.
struct UnexpectedAnswer: Error {}

let executor = RequestExecutor(transport: EchoTransport(), plugins: [BearerTokenPlugin { "token" }])
let base = URL(string: "https://api.example.com")!
let response = try await executor.response(for: GetEcho(), baseURL: base)
let posted = try await executor.send(PostForm(), baseURL: base)
var lines = 0
for try await _ in try await executor.stream(GetEcho(), baseURL: base).lines() { lines += 1 }
guard response.value.path == "/echo", posted.method == "POST", lines == 1,
    response.headerFields.values(for: "Set-Cookie") == ["a=1; Path=/", "b=2; Path=/"]
else {
    throw UnexpectedAnswer()
}
print("netkit-core-example: GET \(response.value.path), POST \(posted.path), \(lines) streamed line, cookies apart")
