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
