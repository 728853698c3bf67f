// netkit-server-example: what a server program on Linux builds from NetKit — NetCore's engine over
// AsyncHTTPClientTransport, with auth, forms and streams — and proof that it needs no libcurl: the binary links no
// FoundationNetworking (CI reads its dynamic libraries in `.ci/link-check`). It sends real requests to a server
// it starts on 127.0.0.1.
//
// Built with the AsyncHTTPClient trait; without it the program only says so.
#if AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LoopbackServer
import NetAsyncHTTPClient
import NetAuth
import NetCore
import NetMultipart
import NetStreaming

struct Greeting: Decodable, Sendable {
    let hello: String
}

struct GetGreeting: Endpoint {
    typealias Response = Greeting
    var path: String { "/greeting" }
    var method: HTTPMethod { .get }
    var headerFields: HTTPHeaderFields { get throws { try HTTPHeaderFields([("X-Tag", "a"), ("X-Tag", "b")]) } }
}

struct PostForm: Endpoint {
    typealias Response = StatusCodeResponse
    var path: String { "/forms" }
    var method: HTTPMethod { .post }
    var body: RequestBody? {
        var form = MultipartFormData()
        form.addField(name: "title", value: "report")
        return try? RequestBody(multipart: form)
    }
}

/// Ends the program with a failure status: the server saw or answered something else than expected.
struct UnexpectedAnswer: Error, CustomStringConvertible {
    let description: String
}

let server = try LoopbackServer { request in
    switch request.target {
    case "/greeting":
        let tags = request.headers.filter { $0.name.lowercased() == "x-tag" }.map(\.value)
        var response = LoopbackResponse.json(#"{"hello":"\#(tags.joined(separator: "+"))"}"#)
        response.headers.append(("Set-Cookie", "a=1"))
        response.headers.append(("Set-Cookie", "b=2"))
        return response
    default:
        return .text("ok")
    }
}
defer { server.stop() }

let transport = AsyncHTTPClientTransport()
let executor = RequestExecutor(transport: transport, plugins: [BearerTokenPlugin { "token" }])
let greeting = try await executor.response(for: GetGreeting(), baseURL: server.baseURL)
let form = try await executor.send(PostForm(), baseURL: server.baseURL)
var streamed = 0
for try await chunk in try await executor.stream(GetGreeting(), baseURL: server.baseURL).chunks {
    streamed += chunk.count
}
try await transport.shutdown()

let cookies = greeting.headerFields.values(for: "Set-Cookie")
guard greeting.value.hello == "a+b", cookies == ["a=1", "b=2"], form.statusCode == 200, streamed > 0 else {
    throw UnexpectedAnswer(description: "hello \(greeting.value.hello), cookies \(cookies), form \(form.statusCode)")
}
print("netkit-server-example: repeated fields both ways, a form and a stream over AsyncHTTPClient")
#else
print("netkit-server-example: build with --traits AsyncHTTPClient")
#endif
