// Runs Docs/Migration/MicroClient.md's snippets over a stub transport and checks what they did.
import Foundation
import NetKit
import NetKitTesting
import Checks

let stubs = StubTransport()
stubs.stub(
    .host("micro.blog"), .path("/posts/bookmarks"),
    reply: .json(#"{"items": [{"id": "1", "content_html": "<p>hi</p>"}]}"#))
stubs.stub(.host("archive.micro.blog"), reply: .json(#"{"items": [{"id": "2", "contentHtml": "<p>old</p>"}]}"#))
let manager = makeManager(transport: stubs)

let response = try await bookmarks(manager)
check(
    response.value.items.first?.contentHtml == "<p>hi</p>" && response.statusCode == 200,
    "the configuration's decoder decodes snake case")
check(stubs.requests.last?.url?.query == "tag=swift&tag=linux", "query items keep their order and repeat a name")
check(stubs.requests.last?.value(forHeader: "Accept-Language") == "en", "default headers are sent")

let archived = try await manager.send(ArchivePosts())
check(archived.items.first?.id == "2", "a request's base URL and decoder override the configuration's")

let bodies = StubTransport()
bodies.stub(.path("/posts"), replies: [.status(503), .json(#"{"id": "p-1"}"#)])
bodies.stub(.path("/posts/filter"), reply: .json(#"{"items": []}"#))
bodies.stub(.path("/attachments"), reply: .json(#"{"id": "a-1"}"#))
let writer = makeManager(transport: bodies)
let created = try await writer.send(CreatePost(post: NewPost(title: "Hi", tags: ["a"]), key: "k-1"))
let posted = bodies.requests.filter { $0.url?.path == "/posts" }
check(
    created.id == "p-1" && posted.count == 2
        && posted.allSatisfy {
            let json = String(decoding: $0.body, as: UTF8.self)
            return json.contains(#""title":"Hi""#) && json.contains(#""tags":["a"]"#)
        },
    "a JSON POST with an Idempotency-Key is sent with its body, and again after a 503")

_ = try await writer.send(FilterPosts(categories: ["swift", "linux"]))
check(
    bodies.requests.last.map { String(decoding: $0.body, as: UTF8.self) }
        == "category%5B%5D=swift&category%5B%5D=linux",
    "repeatable form fields go out in order")

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-guide-\(UUID().uuidString).txt")
try Data("notes".utf8).write(to: scratch)
defer { try? FileManager.default.removeItem(at: scratch) }
let uploaded = try await writer.send(try attachment(scratch, caption: "notes"))
check(
    uploaded.id == "a-1"
        && bodies.requests.last.map { String(decoding: $0.body, as: UTF8.self).contains("notes") } == true,
    "a multipart form carries its file")
let missing = scratch.deletingLastPathComponent().appendingPathComponent("netkit-guide-missing.txt")
do {
    _ = try attachment(missing, caption: "none")
    check(false, "a file that cannot be read fails the form")
} catch {
    check("\(error)".contains(missing.path), "a file that cannot be read fails the form, naming its path: \(error)")
}
