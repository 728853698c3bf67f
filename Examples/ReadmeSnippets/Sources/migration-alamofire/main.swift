// Runs Docs/Migration/Alamofire.md's snippets over stub transports and checks what they did.
import Foundation
import NetKit
import NetKitTesting
import Checks

let stubs = StubTransport()
stubs.stub(.method(.get), .path("/get"), reply: .json(#"{"url": "https://httpbin.org/get"}"#))
stubs.stub(
    .method(.post), .path("/post"), .header("Authorization", "Bearer t-1"),
    reply: .json(#"{"json": {"email": "ada@example.com"}}"#))
stubs.stub(.method(.post), .path("/avatar"), .header("X-Tenant", "acme"), reply: .status(204))
let manager = NetworkManager(baseURL: URL(string: "https://httpbin.org")!, transport: stubs)
manager.plugins = [TenantHeader(tenant: "acme")]

check(try await echo(manager).url == "https://httpbin.org/get", "the fluent chain decodes")
check(
    stubs.requests.last?.url?.query == "page=2" && stubs.requests.last?.value(forHeader: "X-Trace") == "1",
    "query and header reach the request")

let delivered = AsyncStream<Result<HTTPBinResponse, any Error>>.makeStream()
_ = echo(manager) { delivered.continuation.yield($0) }
check(
    (try? await firstValue(of: delivered.stream)?.get())?.url == "https://httpbin.org/get",
    "the completion form delivers the value")

let echoed = try await logIn(manager, Login(email: "ada@example.com", password: "secret"), token: "t-1")
check(echoed["json"]?["email"] == .string("ada@example.com"), "an encodable body and a bearer token go out")

let file = FileManager.default.temporaryDirectory.appendingPathComponent("avatar-\(UUID().uuidString).png")
try Data(repeating: 7, count: 4096).write(to: file)
defer { try? FileManager.default.removeItem(at: file) }
_ = try await manager.send(UploadAvatar(file: file))
let upload = stubs.requests.last
check(
    upload?.body.count ?? 0 > 4096
        && upload?.value(forHeader: "Content-Type")?.hasPrefix("multipart/form-data") == true,
    "a multipart form with a file part is sent")
