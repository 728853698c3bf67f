import Foundation
import NetCore
import NetKitTesting
import Testing

@Suite("HAR replay")
struct HARReplayTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    static func entry(
        _ method: String, _ url: String, status: Int = 200, headers: [HARRecord] = [], body: String = "",
        chunks: [HARChunk]? = nil, requestBody: String? = nil, wait: Double = 0
    ) -> HAREntry {
        HAREntry(
            startedDateTime: HAREntry.timestamp(Date(timeIntervalSince1970: 0)), time: wait,
            request: HARRequest(
                method: method, url: url,
                postData: requestBody.map { HARPostData(mimeType: "application/json", text: $0) }),
            response: HARResponse(
                status: status, headers: headers,
                content: HARContent(size: body.utf8.count, mimeType: "application/json", text: body, chunks: chunks)),
            timings: HARTimings(send: 0, wait: wait, receive: 0))
    }

    static func request(_ url: String, method: HTTPRequestMethod = .get, body: String? = nil) throws
        -> TransportRequest
    {
        TransportRequest(
            head: try HTTPRequestHead(method: method, url: URL(string: url)!),
            body: body.map { UploadSource(data: Data($0.utf8)) })
    }

    static func collect(_ response: TransportResponse) async throws -> [Data] {
        var chunks: [Data] = []
        for try await chunk in response.body { chunks.append(chunk) }
        return chunks
    }

    @Test("answers with the matching exchange: status, fields in order, body")
    func answers() async throws {
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry("GET", "http://api.test/users/1", body: #"{"id":1}"#),
                    Self.entry(
                        "GET", "http://api.test/users/2", status: 404,
                        headers: [
                            HARRecord(name: "Set-Cookie", value: "a=1"), HARRecord(name: "Set-Cookie", value: "b=2"),
                        ], body: #"{"error":"gone"}"#),
                ])))
        let response = try await replay.send(Self.request("http://api.test/users/2"))
        #expect(response.statusCode == 404)
        #expect(response.head.headerFields.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1", "b=2"])
        #expect(try await Self.collect(response).reduce(Data(), +) == Data(#"{"error":"gone"}"#.utf8))
        #expect(replay.unusedEntries.map(\.request.url) == ["http://api.test/users/1"])
    }

    @Test("repeated requests take the recorded exchanges in order, then the last again")
    func order() async throws {
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry("GET", "http://api.test/job", status: 202),
                    Self.entry("GET", "http://api.test/job", status: 200),
                ])))
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await replay.send(Self.request("http://api.test/job")).statusCode) }
        #expect(statuses == [202, 200, 200])
    }

    @Test("query items match in any order, and a redacted value matches any value")
    func queryMatching() async throws {
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry("GET", "http://api.test/search?q=tea&api_key=\(HARRedaction.placeholder)&page=2")
                ])))
        let response = try await replay.send(Self.request("http://api.test/search?page=2&api_key=sk-9&q=tea"))
        #expect(response.statusCode == 200)
        await #expect(throws: HARReplayMismatch.self) {
            try await replay.send(Self.request("http://api.test/search?page=3&api_key=sk-9&q=tea"))
        }
    }

    @Test("an unmatched request names the nearest recorded one and how it differs, without its credentials")
    func mismatch() async throws {
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry("POST", "http://api.test/orders"),
                    Self.entry("GET", "http://api.test/users?page=2&sort=name"),
                ])))
        let error = await #expect(throws: HARReplayMismatch.self) {
            try await replay.send(Self.request("http://api.test/users?page=3&sort=name&access_token=sk-secret-77"))
        }
        let nearest = try #require(error?.nearest)
        #expect(nearest.index == 1)
        #expect(
            nearest.differences == [
                #"query item page: recorded "2", sent "3""#,
                "query item access_token: recorded none, sent (a credential)",
            ])
        let text = try #require(error).description
        #expect(text.contains("No exchange in the archive matches GET"))
        #expect(text.contains("Nearest: exchange 1, GET http://api.test/users?page=2&sort=name"))
        #expect(!text.contains("sk-secret-77"))
        #expect(replay.unmatchedRequests.count == 1)
    }

    @Test("other matchers: path ignores the origin, headers, JSON bodies in any member order")
    func matchers() async throws {
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry(
                        "POST", "http://recorded.test:8080/cart", status: 201,
                        requestBody: #"{"product":7,"count":2,"token":"\#(HARRedaction.placeholder)"}"#)
                ])),
            matchers: [.method, .path, .body])
        let created = try await replay.send(
            Self.request(
                "https://api.example/cart", method: .post, body: #"{"count": 2, "token": "t-1", "product": 7}"#))
        #expect(created.statusCode == 201)
        await #expect(throws: HARReplayMismatch.self) {
            try await replay.send(
                Self.request("https://api.example/cart", method: .post, body: #"{"count":3,"product":7}"#))
        }

        var entry = Self.entry("GET", "http://api.test/me")
        entry.request.headers = [HARRecord(name: "Accept-Language", value: "fr")]
        let byHeader = HARReplayTransport(
            archive: HARArchive(log: HARLog(entries: [entry])), matchers: [.method, .url, .headers("accept-language")])
        var french = try Self.request("http://api.test/me")
        try french.setHeader("Accept-Language", "fr")
        #expect(try await byHeader.send(french).statusCode == 200)
        let error = await #expect(throws: HARReplayMismatch.self) {
            try await byHeader.send(Self.request("http://api.test/me"))
        }
        #expect(error?.nearest?.differences == [#"header accept-language: recorded "fr", sent none"#])

        let custom = HARReplayTransport(
            archive: HARArchive(log: HARLog(entries: [entry])),
            matchers: [HARMatcher("never") { _, _ in false }])
        let refused = await #expect(throws: HARReplayMismatch.self) {
            try await custom.send(Self.request("http://api.test/me"))
        }
        #expect(refused?.nearest?.differences == ["never: does not match"])
    }

    @Test("a streamed body replays in its recorded chunks, and with its timing when asked")
    func chunks() async throws {
        let events = ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]
        let archive = HARArchive(
            log: HARLog(entries: [
                Self.entry(
                    "GET", "http://api.test/events", body: events.joined(),
                    chunks: [HARChunk(size: 9, time: 5), HARChunk(size: 9, time: 250), HARChunk(size: 9, time: 1250)],
                    wait: 40)
            ]))
        let plain = HARReplayTransport(archive: archive)
        let chunks = try await Self.collect(plain.send(Self.request("http://api.test/events")))
        #expect(chunks.map { String(decoding: $0, as: UTF8.self) } == events)

        let clock = StubFaultTests.TestClock()
        let timed = HARReplayTransport(archive: archive, replaysTiming: true, clock: clock)
        _ = try await Self.collect(timed.send(Self.request("http://api.test/events")))
        #expect(clock.waits == [.milliseconds(40), .milliseconds(5), .milliseconds(245), .milliseconds(1000)])
    }

    @Test("a fault misbehaves on the replayed answer it is given to")
    func fault() async throws {
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry("GET", "http://api.test/export", body: String(repeating: "x", count: 1000)),
                    Self.entry("GET", "http://api.test/health", body: "ok"),
                ])))
        replay.fault(.closeMidBody(afterBytes: 100), when: .path("/export"))
        replay.fault(.resetBeforeHead, when: .path("/health"), times: 1)
        let response = try await replay.send(Self.request("http://api.test/export"))
        var received = 0
        let error = await #expect(throws: TransportError.self) {
            for try await chunk in response.body { received += chunk.count }
        }
        #expect(received == 100)
        #expect(error?.kind == .connectionLost)
        let reset = await #expect(throws: TransportError.self) {
            try await replay.send(Self.request("http://api.test/health"))
        }
        #expect(reset?.kind == .connectionReset)
        #expect(try await replay.send(Self.request("http://api.test/health")).statusCode == 200)
    }

    @Test("a response without a body keeps the length its head names: HEAD, 204, 304")
    func bodilessLength() async throws {
        let length = [HARRecord(name: "Content-Length", value: "191")]
        let replay = HARReplayTransport(
            archive: HARArchive(
                log: HARLog(entries: [
                    Self.entry("HEAD", "http://api.test/file", headers: length),
                    Self.entry("GET", "http://api.test/file", status: 304, headers: length),
                ])))
        let head = try await replay.send(Self.request("http://api.test/file", method: .head))
        #expect(head.head.headerFields.value(for: "Content-Length") == "191")
        let notModified = try await replay.send(Self.request("http://api.test/file"))
        #expect(notModified.head.headerFields.value(for: "Content-Length") == "191")
    }

    @Test("unmatched requests pass through to a live transport when asked")
    func passThrough() async throws {
        let live = StubTransport(replies: [.text("live")])
        let replay = HARReplayTransport(
            archive: HARArchive(log: HARLog(entries: [Self.entry("GET", "http://api.test/a", body: "replayed")])),
            unmatched: .passThrough(live))
        let replayed = try await Self.collect(replay.send(Self.request("http://api.test/a")))
        let passed = try await Self.collect(
            replay.send(Self.request("http://api.test/b", method: .post, body: "hello")))
        #expect(replayed == [Data("replayed".utf8)])
        #expect(passed == [Data("live".utf8)])
        #expect(live.requests.map(\.body) == [Data("hello".utf8)])
        #expect(replay.unmatchedRequests.map(\.url?.path) == ["/b"])
    }

    @Test("a HAR a browser exported replays: decoded bodies, base64 images, extra fields, a blocked request")
    func browserExport() async throws {
        let replay = try HARReplayTransport(contentsOf: Self.fixtures.appendingPathComponent("browser-export.har"))
        let products = try await replay.send(Self.request("https://shop.test/api/products?page=2&category=tea"))
        #expect(products.statusCode == 200)
        let body = try await Self.collect(products).reduce(Data(), +)
        #expect(String(decoding: body, as: UTF8.self).contains(#""name":"Oolong""#))
        // The browser kept the length of the gzipped bytes; the replay declares the decoded body's.
        #expect(products.declaredLength == Int64(body.count))
        #expect(products.head.headerFields.value(for: "ETag") == #""p2""#)

        let image = try await Self.collect(replay.send(Self.request("https://shop.test/img/dot.png")))
        #expect(image.reduce(Data(), +) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))

        let cart = try await replay.send(
            Self.request("https://shop.test/api/cart", method: .post, body: #"{"product":7,"count":2}"#))
        #expect(cart.statusCode == 201)
        #expect(cart.head.headerFields.value(for: "Location") == "/api/cart/91")

        let blocked = await #expect(throws: TransportError.self) {
            try await replay.send(Self.request("https://tracker.test/pixel"))
        }
        #expect(blocked?.kind == .connectionReset)
    }

    @Test("a body file named outside the archive's folder is refused, not read")
    func bodyFileOutsideFolder() async throws {
        for file in ["../outside.bin", "/etc/hostname", "bodies/../../outside.bin", "bodies//x.bin"] {
            var entry = Self.entry("GET", "http://api.test/a")
            entry.response.content.file = file
            let replay = HARReplayTransport(
                archive: HARArchive(log: HARLog(entries: [entry])),
                baseDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID())"))
            await #expect(throws: HARReplayError.bodyFileOutsideFolder(file)) {
                try await replay.send(Self.request("http://api.test/a"))
            }
        }
    }

    @Test("the browser export meets the HAR 1.2 schema check, so the check reads real files")
    func browserExportIsValid() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("browser-export.har"))
        #expect(HARSchema.violations(in: data) == [])
        var broken = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var log = try #require(broken["log"] as? [String: Any])
        log["entries"] = [["request": ["method": "GET"], "time": "soon"]]
        broken["log"] = log
        let violations = HARSchema.violations(in: try JSONSerialization.data(withJSONObject: broken))
        #expect(violations.contains("$.log.entries[0].request.url: missing"))
        #expect(violations.contains("$.log.entries[0].time: not a number"))
        #expect(violations.contains("$.log.entries[0].response: missing"))
    }

    @Test("what NetKit records meets HAR 1.2, replays, and streams a large body from its file")
    func recordingIsValidAndReplays() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-valid-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mixed.har")
        let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let live = StubTransport()
        live.stub(.path("/json"), reply: .json(#"{"id":1,"password":"hunter2"}"#))
        live.stub(.path("/binary"), reply: .data(Data([0, 0xFF, 0xC3, 0x28]), headers: ["Content-Type": "image/x"]))
        live.stub(.path("/large"), reply: StubTransport.Reply(chunks: [large[..<100_000], large[100_000...]]))
        live.stub(.path("/down"), reply: .failure(.cannotConnect))
        let recorder = HARRecordingTransport(wrapping: live, to: file)
        for path in ["/json", "/binary", "/large"] {
            _ = try await Self.collect(recorder.send(Self.request("http://api.test\(path)")))
        }
        await #expect(throws: TransportError.self) { try await recorder.send(Self.request("http://api.test/down")) }
        _ = try await Self.collect(
            recorder.send(Self.request("http://api.test/json", method: .post, body: #"{"password":"hunter2"}"#)))
        try await recorder.flush()

        let data = try Data(contentsOf: file)
        #expect(HARSchema.violations(in: data) == [])
        #expect(!String(decoding: data, as: UTF8.self).contains("hunter2"))

        let replay = try HARReplayTransport(contentsOf: file)
        let chunks = try await Self.collect(replay.send(Self.request("http://api.test/large")))
        #expect(chunks.map(\.count) == [100_000, 200_000])
        #expect(chunks.reduce(Data(), +) == large)
        let binary = try await Self.collect(replay.send(Self.request("http://api.test/binary")))
        #expect(binary.reduce(Data(), +) == Data([0, 0xFF, 0xC3, 0x28]))
        await #expect(throws: TransportError.self) { try await replay.send(Self.request("http://api.test/down")) }
    }

    @Test("an archive round-trips through its JSON, custom fields included")
    func roundTrip() throws {
        var entry = Self.entry("GET", "http://api.test/a", body: "abc", chunks: [HARChunk(size: 3, time: 1.5)])
        entry.response.content.file = "a.bodies/0-response.bin"
        let archive = HARArchive(log: HARLog(entries: [entry]))
        let data = try archive.encoded()
        #expect(try JSONDecoder().decode(HARArchive.self, from: data) == archive)
        #expect(HARSchema.violations(in: data) == [])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""_chunks""#) && text.contains(#""_file""#))
    }

    @Test("fixture modes: replay needs the file, record-once records when it is missing, the environment overrides")
    func modes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-modes-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("users.har")
        #expect(throws: HARFixtureError.missing(path: file.path)) {
            try HARFixture(file, mode: .replay).makeTransport(live: { StubTransport(replies: []) })
        }
        #expect(throws: HARFixtureError.noLiveTransport(path: file.path)) {
            try HARFixture(file, mode: .rerecord).makeTransport()
        }
        #expect(throws: HARFixtureError.unknownMode("sometimes")) {
            try HARMode.replay.overridden(by: ["NETKIT_HAR_MODE": "sometimes"])
        }
        #expect(try HARMode.replay.overridden(by: ["NETKIT_HAR_MODE": "rerecord"]) == .rerecord)
        #expect(try HARMode.recordOnce.overridden(by: [:]) == .recordOnce)

        let recording = try HARFixture(file, mode: .recordOnce).makeTransport(live: {
            StubTransport(replies: [.text("first")])
        })
        #expect(recording.isRecording)
        _ = try await Self.collect(recording.send(Self.request("http://api.test/a")))
        try await recording.finish()

        let replaying = try HARFixture(file, mode: .recordOnce).makeTransport(live: {
            StubTransport(replies: [.text("never")])
        })
        #expect(!replaying.isRecording)
        let again = try await Self.collect(replaying.send(Self.request("http://api.test/a")))
        #expect(again.reduce(Data(), +) == Data("first".utf8))
    }
}
