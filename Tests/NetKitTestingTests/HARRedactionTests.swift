import Foundation
import NetCore
import NetKitTesting
import Testing

/// What `HARRecordingTransport` keeps out of the files it writes: every test greps the written bytes for the
/// secrets it sent.
@Suite("HAR redaction", .timeLimit(.minutes(10)))
struct HARRedactionTests {
    /// A fresh folder for one test's archive, removed by the test.
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-har-\(UUID().uuidString)")
        var archive: URL { url.appendingPathComponent("redaction.har") }
        func remove() { try? FileManager.default.removeItem(at: url) }

        /// Every file written under the folder, as bytes, concatenated.
        func everything() throws -> Data {
            let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.allObjects ?? []
            var all = Data()
            for case let file as URL in files where !file.hasDirectoryPath {
                all.append(try Data(contentsOf: file))
            }
            return all
        }
    }

    /// Whether `data` holds `text`'s bytes anywhere.
    func holds(_ data: Data, _ text: String) -> Bool {
        data.range(of: Data(text.utf8)) != nil
    }

    /// Records one exchange whose response body is `chunks` of `contentType`, read to its end; returns the entry.
    func recordResponse(
        _ chunks: [String], contentType: String? = "application/json", redaction: HARRedaction = .standard,
        in folder: Folder, inlineBodyLimit: Int = 64 * 1024
    ) async throws -> HAREntry {
        try await recordResponse(
            bytes: chunks.map { Data($0.utf8) }, contentType: contentType, redaction: redaction, in: folder,
            inlineBodyLimit: inlineBodyLimit)
    }

    func recordResponse(
        bytes chunks: [Data], contentType: String?, redaction: HARRedaction = .standard,
        in folder: Folder, inlineBodyLimit: Int = 64 * 1024
    ) async throws -> HAREntry {
        let reply = StubTransport.Reply(headers: contentType.map { ["Content-Type": $0] } ?? [:], chunks: chunks)
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [reply]), to: folder.archive, redaction: redaction,
            inlineBodyLimit: inlineBodyLimit)
        let response = try await recording.send(
            TransportRequest(head: try HTTPRequestHead(url: URL(string: "https://api.test/r")!)))
        #expect(try await response.body.collect(upTo: 16 << 20) == chunks.reduce(Data(), +))
        try await recording.flush()
        return try #require(try HARArchive(contentsOf: folder.archive).log.entries.first)
    }

    @Test("no credential the exchange carried is in any file written, and the wire request kept them all")
    func noSecretWritten() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let reply = StubTransport.Reply.json(#"{"access_token":"SECRET4","user":{"password":"SECRET5","name":"ann"}}"#)
            .header("Set-Cookie", "session=SECRET3; Path=/; HttpOnly").header("Set-Cookie", "theme=dark")
        let stub = StubTransport(replies: [reply])
        let recording = HARRecordingTransport(
            wrapping: stub, to: folder.archive, redaction: HARRedaction(queryItems: ["sig"]))
        var request = TransportRequest(
            head: try HTTPRequestHead(
                method: .post,
                url: URL(string: "https://api.test/v1/login?api_key=SECRET2&sig=SECRET8&signed=SECRET11&page=1")!,
                headerFields: HTTPHeaderFields([
                    (name: "Authorization", value: "Bearer sk-live-SECRET1"),
                    (name: "Cookie", value: "sid=SECRET6; lang=en"),
                    (name: "X-API-Key", value: "SECRET7"),
                    (name: "X-Functions-Code", value: "SECRET9"),
                    (name: "Content-Type", value: "application/json"),
                ])),
            body: UploadSource(data: Data(#"{"user":"ann","password":"SECRET10"}"#.utf8)))
        // As a plugin declares the fields it sets: names that do not look secret.
        request.credentialFields.formUnion(
            CredentialFields(headerNames: ["X-Functions-Code"], queryItemNames: ["signed"]))
        let response = try await recording.send(request)
        _ = try await response.body.collect(upTo: 1 << 20)
        try await recording.flush()

        let written = try folder.everything()
        #expect(!written.isEmpty)
        #expect(!holds(written, "SECRET"))
        #expect(holds(written, HARRedaction.placeholder))
        let sent = try #require(stub.requests.first)
        #expect(sent.value(forHeader: "Authorization") == "Bearer sk-live-SECRET1")
        #expect(sent.body == Data(#"{"user":"ann","password":"SECRET10"}"#.utf8))

        let entry = try #require(recording.archive.log.entries.first)
        #expect(entry.request.url == "https://api.test/v1/login?api_key=REDACTED&sig=REDACTED&signed=REDACTED&page=1")
        #expect(entry.request.queryString.map(\.value) == ["REDACTED", "REDACTED", "REDACTED", "1"])
        #expect(
            entry.request.headers.map(\.value) == [
                "REDACTED", "sid=REDACTED; lang=REDACTED", "REDACTED", "REDACTED", "application/json",
            ])
        #expect(entry.request.postData?.text == #"{"user":"ann","password":"REDACTED"}"#)
        #expect(
            entry.response.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == [
                "session=REDACTED; Path=/; HttpOnly", "theme=REDACTED",
            ])
        #expect(
            entry.response.content.text == #"{"access_token":"REDACTED","user":{"password":"REDACTED","name":"ann"}}"#)
        #expect(entry.response.content.comment == "2 values redacted; the sizes recorded count the original bytes")
        #expect(entry.request.postData?.comment == "1 value redacted; the sizes recorded count the original bytes")
    }

    @Test("keeping(header:) records that one header as it is, and only that one")
    func keepingHeader() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [.status(200)]), to: folder.archive,
            redaction: .standard.keeping(header: "x-api-key"))
        let request = TransportRequest(
            head: try HTTPRequestHead(
                url: URL(string: "https://api.test/")!,
                headerFields: HTTPHeaderFields([
                    (name: "X-API-Key", value: "public-demo-key"), (name: "Authorization", value: "Basic SECRET1"),
                ])))
        _ = try await recording.send(request).body.collect(upTo: 0)
        try await recording.flush()
        let written = try folder.everything()
        #expect(holds(written, "public-demo-key"))
        #expect(!holds(written, "SECRET1"))
    }

    @Test("keeping(queryItem:) and keeping(jsonField:) opt single fields back in")
    func keepingFields() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let redaction = HARRedaction.standard.keeping(jsonField: "token").keeping(queryItem: "access_token")
        let recording = HARRecordingTransport(
            wrapping: StubTransport(replies: [.json(#"{"token":"kept-1","password":"SECRET1"}"#)]), to: folder.archive,
            redaction: redaction)
        let request = TransportRequest(
            head: try HTTPRequestHead(url: URL(string: "https://api.test/?access_token=kept-2&api_key=SECRET2")!))
        _ = try await recording.send(request).body.collect(upTo: 1 << 20)
        try await recording.flush()
        let written = try folder.everything()
        #expect(holds(written, "kept-1") && holds(written, "kept-2"))
        #expect(!holds(written, "SECRET"))
    }

    @Test("JSON redaction keeps the text valid and as it was, at any depth, whatever the value")
    func jsonShapes() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let body = """
            [ {"id": 1, "password" : {"old": "SECRET1", "list": [1, "]", {"x": "}"}]}},
              {"pass\\u0077ord": "SECRET2", "secret": -12.5e3, "token": null, "Client_Secret": true},
              {"nested": [[{"refresh_token": ["SECRET3"]}]], "note": "password \\" here"} ]
            """
        let entry = try await recordResponse([body], redaction: HARRedaction(jsonFields: ["note"]), in: folder)
        let text = try #require(entry.response.content.text)
        #expect(
            text == """
                [ {"id": 1, "password" : "REDACTED"},
                  {"pass\\u0077ord": "REDACTED", "secret": "REDACTED", "token": "REDACTED", "Client_Secret": "REDACTED"},
                  {"nested": [[{"refresh_token": "REDACTED"}]], "note": "REDACTED"} ]
                """)
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(text.utf8)) }
        #expect(!holds(try folder.everything(), "SECRET"))
    }

    @Test("a JSON body redacts alike however it is cut into chunks")
    func jsonAcrossChunks() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let body = #"{"user":"ann","access_token":"SECRET1","n":[1,2,{"password":12345}],"ok":true}"#
        let pieces = body.map { String($0) }
        let entry = try await recordResponse(pieces, in: folder)
        #expect(
            entry.response.content.text
                == #"{"user":"ann","access_token":"REDACTED","n":[1,2,{"password":"REDACTED"}],"ok":true}"#)
        #expect(entry.response.content.chunks?.count == pieces.count)
    }

    @Test("a JSON body above the inline limit is redacted in its file too")
    func largeJSON() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let filler = String(repeating: #"{"name":"ann","age":41},"#, count: 4000)
        let body = #"{"items":["# + filler + #"{"password":"SECRET1"}],"refresh_token":"SECRET2"}"#
        let pieces = stride(from: 0, to: body.utf8.count, by: 4093).map { start in
            String(decoding: Array(body.utf8)[start..<min(start + 4093, body.utf8.count)], as: UTF8.self)
        }
        let entry = try await recordResponse(pieces, in: folder)
        let file = try #require(entry.response.content.file)
        let stored = try Data(contentsOf: folder.archive.deletingLastPathComponent().appendingPathComponent(file))
        #expect(!holds(stored, "SECRET"))
        #expect(holds(stored, #""refresh_token":"REDACTED""#))
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: stored) }
        #expect(entry.response.content.size == body.utf8.count)
    }

    @Test("a body that is not JSON is left as it is, even with a JSON content type")
    func notJSON() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let body = "password: not json at all"
        let entry = try await recordResponse([body], in: folder)
        #expect(entry.response.content.text == body)
    }

    @Test("JSON is redacted whatever the content type says, none included: a password sent as text/plain")
    func plainText() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let body = #"{"password":"hunter2"}"#
        let entry = try await recordResponse([body], contentType: "text/plain", in: folder)
        #expect(entry.response.content.text == #"{"password":"REDACTED"}"#)
        let untyped = try await recordResponse([body], contentType: nil, in: folder)
        #expect(untyped.response.content.text == #"{"password":"REDACTED"}"#)
        let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x7B]) + Data(#""password":"x"}"#.utf8)
        let image = try await recordResponse(bytes: [binary], contentType: "image/png", in: folder)
        #expect(image.response.content.inlineData == binary)
    }

    @Test("a +json body and a form body are redacted")
    func problemJSONAndForm() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let problem = try await recordResponse(
            [#"{"title":"bad","client_secret":"SECRET1"}"#], contentType: "application/problem+json; charset=utf-8",
            in: folder)
        #expect(problem.response.content.text == #"{"title":"bad","client_secret":"REDACTED"}"#)
        let form = try await recordResponse(
            ["grant_type=password&username=ann&pass", "word=SECRET2&client%5Fsecret=SECRET3&scope=read"],
            contentType: "application/x-www-form-urlencoded", in: folder)
        #expect(
            form.response.content.text
                == "grant_type=password&username=ann&password=REDACTED&client%5Fsecret=REDACTED&scope=read")
        #expect(!holds(try folder.everything(), "SECRET"))
    }

    @Test("a Location's credential query values are redacted, in the header and in redirectURL")
    func location() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let reply = StubTransport.Reply.status(302).header("Location", "/callback?code=abc&access_token=SECRET1#top")
        let recording = HARRecordingTransport(wrapping: StubTransport(replies: [reply]), to: folder.archive)
        _ = try await recording.send(TransportRequest(head: try HTTPRequestHead(url: URL(string: "https://a.test/")!)))
            .body.collect(upTo: 0)
        try await recording.flush()
        let entry = try #require(recording.archive.log.entries.first)
        #expect(entry.response.redirectURL == "/callback?code=abc&access_token=REDACTED#top")
        #expect(!holds(try folder.everything(), "SECRET"))
    }

    @Test(
        "every header that carries a URL has its credential query values redacted: Referer, Content-Location, Refresh, each Link"
    )
    func urlHeaders() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let reply = StubTransport.Reply.status(200)
            .header("Content-Location", "/files/1?X-Amz-Signature=SECRET1&part=2")
            .header("Refresh", "5; url=https://a.test/next?access_token=SECRET2")
            .header(
                "Link", #"<https://a.test/p?page=2&api_key=SECRET3>; rel="next", <https://a.test/p?page=1>; rel="prev""#
            )
        let recording = HARRecordingTransport(wrapping: StubTransport(replies: [reply]), to: folder.archive)
        var head = try HTTPRequestHead(url: URL(string: "https://a.test/")!)
        try head.headerFields.setValue("https://a.test/login?code=abc&access_token=SECRET4#top", for: "Referer")
        _ = try await recording.send(TransportRequest(head: head)).body.collect(upTo: 0)
        try await recording.flush()
        let entry = try #require(recording.archive.log.entries.first)
        func value(_ name: String, in records: [HARRecord]) -> String? { records.first { $0.name == name }?.value }
        #expect(
            value("Referer", in: entry.request.headers) == "https://a.test/login?code=abc&access_token=REDACTED#top")
        #expect(value("Content-Location", in: entry.response.headers) == "/files/1?X-Amz-Signature=REDACTED&part=2")
        #expect(value("Refresh", in: entry.response.headers) == "5; url=https://a.test/next?access_token=REDACTED")
        #expect(
            value("Link", in: entry.response.headers)
                == #"<https://a.test/p?page=2&api_key=REDACTED>; rel="next", <https://a.test/p?page=1>; rel="prev""#)
        #expect(!holds(try folder.everything(), "SECRET"))
    }

    @Test("what the standard redaction replaces, and what keeping(…) brings back")
    func predicates() {
        let standard = HARRedaction.standard
        #expect(HARRedaction.placeholder == "REDACTED")
        for name in ["Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-API-Key", "X-Auth-Token"] {
            #expect(standard.redactsHeader(name), "\(name)")
        }
        #expect(!standard.redactsHeader("Accept"))
        #expect(standard.redactsHeader("X-Custom", credentialFields: .header("x-custom")))
        #expect(!standard.keeping(header: "authorization").redactsHeader("Authorization"))
        #expect(HARRedaction(headers: ["X-Tenant"]).redactsHeader("x-tenant"))
        #expect(standard.redactsQueryItem("api_key") && standard.redactsQueryItem("access_token"))
        #expect(!standard.redactsQueryItem("page"))
        #expect(standard.redactsQueryItem("sig", credentialFields: .queryItem("sig")))
        #expect(HARRedaction(queryItems: ["Sig"]).redactsQueryItem("sig"))
        #expect(!standard.keeping(queryItem: "api_key").redactsQueryItem("api_key"))
        for name in ["access_token", "refresh_token", "id_token", "client_secret", "password", "PASSWORD"] {
            #expect(standard.redactsJSONField(name), "\(name)")
        }
        #expect(!standard.redactsJSONField("token_type"))
        #expect(!standard.keeping(jsonField: "Password").redactsJSONField("password"))
        #expect(standard.keeping(jsonField: "password").redacting(jsonField: "password").redactsJSONField("password"))
    }
}
