import Foundation
import LoopbackServer
import NetCore

/// A few real exchanges recorded through ``HARRecordingTransport`` over 127.0.0.1, the same lines on every transport:
/// a JSON `GET`, a JSON `POST` answered with a cookie, a streamed download of a few MiB (kept in a file beside the
/// archive) and a stream upload, every one carrying credentials that must not reach the files written.
package enum HARRecordingLoopbackCheck {
    /// What every transport must report.
    package static let expected = [
        "entries: GET /v1/users/1, POST /v1/login, GET /v1/download, POST /v1/upload",
        #"users: 200 OK, application/json, {"id":1,"name":"ann","access_token":"REDACTED"}"#,
        #"users request: url ?api_key=REDACTED&page=1, Authorization REDACTED, X-API-Key REDACTED, Cookie sid=REDACTED"#,
        #"login: sent {"user":"ann","password":"REDACTED"}, Set-Cookie session=REDACTED; Path=/; HttpOnly"#,
        #"login answer: {"ok":true,"refresh_token":"REDACTED"}"#,
        "download: 3145728 bytes in recorded.bodies/3-response.bin, the bytes sent, chunks adding up to 3145728",
        "upload: the server got 150000 bytes, the same; recorded 150000 bytes in recorded.bodies/4-request.bin, the same",
        "the wire kept the credentials; no file written holds one",
        "timings: every phase measured or -1, time the sum",
    ]

    /// The secrets every exchange carries somewhere.
    private static let secrets = [
        "SECRET-AUTH", "SECRET-KEY", "SECRET-QUERY", "SECRET-COOKIE", "SECRET-PASSWORD", "SECRET-ACCESS",
        "SECRET-REFRESH", "SECRET-SESSION",
    ]

    private static let downloadSize = 3 << 20
    private static let upload = LoopbackBodyPattern.data(offset: 7, count: 150_000)

    /// Records the four exchanges over `transport` and describes what the files hold.
    package static func run(on transport: any HTTPTransport) async throws -> [String] {
        let server = try LoopbackServer { answer($0) }
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-har-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let archiveURL = folder.appendingPathComponent("recorded.har")
        let recording = HARRecordingTransport(wrapping: transport, to: archiveURL)
        let base = server.baseURL.absoluteString

        let credentials = try HTTPHeaderFields([
            (name: "Authorization", value: "Bearer SECRET-AUTH"), (name: "X-API-Key", value: "SECRET-KEY"),
            (name: "Cookie", value: "sid=SECRET-COOKIE"),
        ])
        var users = try HTTPRequestHead(url: URL(string: base + "/v1/users/1?api_key=SECRET-QUERY&page=1")!)
        users.headerFields = credentials
        var login = try HTTPRequestHead(method: .post, url: URL(string: base + "/v1/login")!)
        try login.headerFields.setValue("application/json", for: "Content-Type")
        let download = try HTTPRequestHead(url: URL(string: base + "/v1/download")!)
        let uploadHead = try HTTPRequestHead(method: .post, url: URL(string: base + "/v1/upload")!)

        let usersBody = try await read(recording.send(TransportRequest(head: users)))
        let loginBody = try await read(
            recording.send(
                TransportRequest(
                    head: login, body: UploadSource(data: Data(#"{"user":"ann","password":"SECRET-PASSWORD"}"#.utf8)))))
        let downloaded = try await read(recording.send(TransportRequest(head: download)))
        let uploadAnswer = try await read(
            recording.send(
                TransportRequest(head: uploadHead, body: UploadSource(stream: InputStream(data: upload), length: nil))))
        try await recording.flush()

        let archive = try HARArchive(contentsOf: archiveURL)
        let entries = archive.log.entries
        guard entries.count == 4 else { return ["entries: \(entries.count), not 4"] }
        let written = try everything(in: folder)
        let wire = server.requests
        let wireKept =
            wire.first?.headers.contains { $0.name == "Authorization" && $0.value == "Bearer SECRET-AUTH" } == true
            && wire.first?.target.contains("api_key=SECRET-QUERY") == true
            && wire.dropFirst().first?.body.range(of: Data("SECRET-PASSWORD".utf8)) != nil
        let leaks = secrets.filter { written.range(of: Data($0.utf8)) != nil }
        return [
            "entries: " + entries.map { "\($0.request.method) \(path(of: $0.request.url))" }.joined(separator: ", "),
            describeUsers(entries[0], usersBody),
            describeUsersRequest(entries[0].request),
            describeLogin(entries[1]),
            "login answer: " + (entries[1].response.content.text ?? "none") + (loginBody.isEmpty ? " (not read)" : ""),
            try describeDownload(entries[2], downloaded, folder: folder),
            try describeUpload(entries[3], uploadAnswer, folder: folder),
            (wireKept ? "the wire kept the credentials" : "the wire lost a credential")
                + (leaks.isEmpty ? "; no file written holds one" : "; written: \(leaks.joined(separator: ", "))"),
            describeTimings(entries),
        ]
    }

    /// What the server answers.
    private static func answer(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/v1/users/1":
            return .json(#"{"id":1,"name":"ann","access_token":"SECRET-ACCESS"}"#)
        case "/v1/login":
            var response = LoopbackResponse.json(#"{"ok":true,"refresh_token":"SECRET-REFRESH"}"#)
            response.headers.append((name: "Set-Cookie", value: "session=SECRET-SESSION; Path=/; HttpOnly"))
            return response
        case "/v1/download":
            return .patterned(byteCount: downloadSize, chunked: true)
        case "/v1/upload":
            return .text("\(request.body.count) \(request.body == upload ? "same" : "other")")
        default:
            return .text("no such path", status: 404)
        }
    }

    private static func read(_ response: TransportResponse) async throws -> Data {
        try await response.body.collect(upTo: 16 << 20)
    }

    private static func path(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return components.path
    }

    private static func describeUsers(_ entry: HAREntry, _ body: Data) -> String {
        let response = entry.response
        let read = body.range(of: Data("SECRET-ACCESS".utf8)) != nil ? "" : " (the caller did not get the body)"
        return "users: \(response.status) \(response.statusText), \(response.content.mimeType), "
            + (response.content.text ?? "no text") + read
    }

    private static func describeUsersRequest(_ request: HARRequest) -> String {
        func header(_ name: String) -> String {
            request.headers.first { $0.name == name }?.value ?? "missing"
        }
        let query = request.url.firstIndex(of: "?").map { String(request.url[$0...]) } ?? "none"
        return "users request: url \(query), Authorization \(header("Authorization")), "
            + "X-API-Key \(header("X-API-Key")), Cookie \(header("Cookie"))"
    }

    private static func describeLogin(_ entry: HAREntry) -> String {
        let cookies = entry.response.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        return
            "login: sent \(entry.request.postData?.text ?? "nothing"), Set-Cookie \(cookies.joined(separator: " | "))"
    }

    private static func describeDownload(_ entry: HAREntry, _ received: Data, folder: URL) throws -> String {
        let content = entry.response.content
        guard let file = content.file else { return "download: \(content.size) bytes, not in a file" }
        let stored = try Data(contentsOf: folder.appendingPathComponent(file))
        let expected = LoopbackBodyPattern.data(count: downloadSize)
        let same = stored == expected && received == expected ? "the bytes sent" : "other bytes"
        let chunks = content.chunks ?? []
        return "download: \(content.size) bytes in \(file), \(same), chunks adding up to "
            + "\(chunks.reduce(0) { $0 + $1.size })"
    }

    private static func describeUpload(_ entry: HAREntry, _ answer: Data, folder: URL) throws -> String {
        let server = String(decoding: answer, as: UTF8.self).split(separator: " ")
        let postData = entry.request.postData
        guard let file = postData?.file else {
            return "upload: recorded \(entry.request.bodySize) bytes, not in a file"
        }
        let stored = try Data(contentsOf: folder.appendingPathComponent(file))
        return "upload: the server got \(server.first ?? "nothing") bytes, the \(server.last ?? "nothing"); "
            + "recorded \(entry.request.bodySize) bytes in \(file), the \(stored == upload ? "same" : "other")"
    }

    private static func describeTimings(_ entries: [HAREntry]) -> String {
        let sane = entries.allSatisfy { entry in
            let timings = entry.timings
            return [timings.send, timings.wait, timings.receive].allSatisfy { $0 >= 0 }
                && [timings.blocked, timings.dns, timings.connect, timings.ssl].allSatisfy { $0 == -1 }
                && entry.time == timings.total
        }
        return sane ? "timings: every phase measured or -1, time the sum" : "timings: \(entries.map(\.timings))"
    }

    /// Every file under `folder`, concatenated.
    private static func everything(in folder: URL) throws -> Data {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects ?? []
        var all = Data()
        for case let file as URL in files where !file.hasDirectoryPath {
            all.append(try Data(contentsOf: file))
        }
        return all
    }
}
