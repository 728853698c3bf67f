import Foundation
import LoopbackServer
import NetKitLock

/// What the demo's server answers. The handler runs on each connection's own thread.
final class DemoRoutes: Sendable {
    /// The token `/auth/refresh` hands out; `/me` accepts no other.
    static let freshToken = "fresh-token"
    /// The cached article's version: its ETag.
    static let articleETag = #""v1""#

    private let reportAttempts = Lock(0)
    /// The dataset `/datasets/cities.csv` serves with ranges: its first answer breaks off after 3 MiB.
    let dataset: LoopbackRangedResource = {
        let resource = LoopbackRangedResource(byteCount: 8 << 20)
        resource.sendsReprDigest = true
        resource.cuts = [3 << 20]
        return resource
    }()

    func answer(_ request: LoopbackRequest) -> LoopbackResponse {
        switch (request.method, request.path) {
        case ("GET", "/todos"):
            return .json(#"[{"id":1,"title":"Write docs","done":true},{"id":2,"title":"Ship 1.0","done":false}]"#)
        case ("POST", "/todos"):
            let title = (try? JSONDecoder().decode([String: String].self, from: request.body))?["title"] ?? "?"
            return .json(#"{"id":3,"title":"\#(title)","done":false}"#, status: 201)
        case ("POST", "/auth/refresh"):
            // Slow enough that all 20 requests are waiting on the refresh before it ends.
            return LoopbackResponse.json(#"{"accessToken":"\#(Self.freshToken)"}"#).with(
                .delayBeforeHead(.milliseconds(200)))
        case ("GET", "/me"):
            guard request.header("Authorization") == "Bearer \(Self.freshToken)" else {
                return .json(#"{"error":"token expired"}"#, status: 401)
            }
            return .json(#"{"name":"Ann"}"#)
        case ("GET", "/reports/daily"):
            if reportAttempts.withLock({
                $0 += 1
                return $0
            }) == 1 {
                return LoopbackResponse(
                    status: 503, headers: [("Retry-After", "1"), ("Content-Type", "text/plain")],
                    body: Data("busy".utf8))
            }
            return .json(#"{"visits":1234}"#)
        case ("POST", "/attachments"):
            let parts = (try? request.multipartParts()) ?? []
            let file = parts.first { $0.filename != nil }
            return .json(#"{"parts":\#(parts.count),"fileBytes":\#(file?.data.count ?? 0)}"#, status: 201)
        case ("GET", "/todos/feed"):
            return .streamed(headers: [("Content-Type", "application/x-ndjson")]) { writer in
                for id in 1...4 {
                    guard writer.write(#"{"id":\#(id),"title":"change \#(id)"}"# + "\n") else { return }
                    Thread.sleep(forTimeInterval: 0.15)  // the server's pace, so that lines visibly arrive one by one
                }
            }
        case ("GET", "/datasets/cities.csv"):
            return dataset.respond(to: request)
        case ("GET", "/todos/events"):
            return events(after: request.header("Last-Event-ID"))
        case ("GET", "/articles/1"):
            // No max-age: every use is revalidated; a matching ETag gets a 304 with no body.
            if request.header("If-None-Match") == Self.articleETag {
                return LoopbackResponse(
                    status: 304, headers: [("ETag", Self.articleETag), ("Cache-Control", "no-cache")])
            }
            return LoopbackResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/json"), ("ETag", Self.articleETag), ("Cache-Control", "no-cache"),
                ],
                body: Data(#"{"id":1,"title":"Caching with ETags"}"#.utf8)
            )
        default:
            return .text("not found", status: 404)
        }
    }

    /// The first connection breaks after two events; the reconnection resumes after the last id it saw; then 204:
    /// no more.
    private func events(after lastEventID: String?) -> LoopbackResponse {
        switch lastEventID {
        case nil:
            return .streamed(headers: [("Content-Type", "text/event-stream")]) { writer in
                _ = writer.write("retry: 100\nid: 1\nevent: added\ndata: Write docs\n\n")
                Thread.sleep(forTimeInterval: 0.15)
                _ = writer.write("id: 2\nevent: added\ndata: Ship 1.0\n\n")
                Thread.sleep(forTimeInterval: 0.15)
                writer.abort()
            }
        case "2":
            return .streamed(headers: [("Content-Type", "text/event-stream")]) { writer in
                _ = writer.write("id: 3\nevent: done\ndata: Write docs\n\n")
            }
        default:
            return LoopbackResponse(status: 204)
        }
    }
}
