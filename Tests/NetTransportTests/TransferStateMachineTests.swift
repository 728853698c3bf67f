import Foundation
import NetCore
import Testing

@testable import NetTransport

/// Every decision of a URLSession transfer without URLSession: each row feeds the machine a sequence of events (the
/// state the transfer reached, then the event under test) and expects the action each one returns.
@Suite("URLSession transfer state machine")
struct TransferStateMachineTests {
    typealias Machine = SessionDelegate.TransferStateMachine<String, String>

    /// The platform whose URLSession the row assumes.
    enum Platform: Sendable {
        /// FoundationNetworking: a 401 reported before its challenge, per-chunk bookkeeping.
        case linux
        /// Apple's URLSession: neither.
        case apple

        var quirks: Machine.Quirks {
            switch self {
            case .linux: Machine.Quirks(reports401BeforeChallenge: true, holdsChunkBookkeeping: true)
            case .apple: Machine.Quirks(reports401BeforeChallenge: false, holdsChunkBookkeeping: false)
            }
        }
    }

    /// The road the body takes.
    enum Road: Sendable {
        case streamed
        /// Gathered whole within these limits.
        case whole(success: Int, failure: Int)
    }

    /// What the test tells the machine to have libcurl think when asked for the body again.
    enum Resend: Sendable {
        case nothing
        case stream
        case refuse
    }

    /// What URLSession reports.
    enum Event: Sendable {
        /// A head with `status`, header fields, and the length URLSession expects.
        case head(Int, [String: String] = [:], expected: Int64? = nil)
        case nonHTTP
        /// `count` chunks of `size` bytes, each `every` after the one before.
        case chunks(Int, size: Int, every: Duration = .zero)
        case sent(Int64, expected: Int64)
        /// libcurl asks for the body again.
        case resend
        /// The fresh stream of the body could not be made.
        case resendFailed
        /// The task completed, with URLSession's error code if it failed.
        case complete(URLError.Code?)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var platform: Platform = .linux
        var road: Road = .streamed
        var progress = true
        var uploadLength: Int64?
        var method: HTTPRequestMethod = .get
        var resend: Resend = .nothing
        var tinyChunks: TinyChunkBudget.Limits = .standard
        var events: [Event]
        /// What each event leads to, in order.
        var expected: [String]

        var testDescription: String { name }
    }

    /// The body handed out with a streamed head.
    static let unread = Data("unread".utf8)

    /// 10 chunks' bookkeeping held at most, one freed a second, chunks of 1,000 bytes or more free.
    static let tenChunks = TinyChunkBudget.Limits(
        memoryBudget: 1000, bytesPerChunk: 100, releasedPerSecond: 1, tinyBelow: 1000)

    static let heads: [Row] = [
        Row(
            name: "a streamed head is handed out with the unread body", events: [.head(200)],
            expected: ["handOut(waiter, 200, unread)"]),
        Row(
            name: "an interim 100 Continue is passed over", events: [.head(100), .head(200)],
            expected: ["none", "handOut(waiter, 200, unread)"]),
        Row(
            name: "a second head after the first was handed out changes nothing", events: [.head(200), .head(200)],
            expected: ["handOut(waiter, 200, unread)", "none"]),
        Row(
            name: "a response that is not HTTP fails the waiter and cancels; the cancellation ends the body",
            events: [.nonHTTP, .complete(.cancelled)],
            expected: ["failAndCancel(waiter, invalidResponse)", "finish(writer, cancelled)"]),
        Row(
            name: "a coding NetKit does not decode is refused at the head",
            events: [.head(200, ["Content-Encoding": "br"]), .chunks(1, size: 10), .complete(.cancelled)],
            expected: [
                "failAndCancel(waiter, badResponse!)", "drop", "finish(writer, badResponse!)",
            ]),
        Row(
            name: "a refusal after a stop cancels without a waiter",
            resend: .refuse, events: [.resend, .head(200, ["Content-Encoding": "zstd"]), .complete(.cancelled)],
            expected: [
                "refuse", "failAndCancel(-, badResponse!)",
                "resume(waiter, connectionReset) finish(writer, connectionReset)",
            ]),
        Row(
            name: "a whole body that cannot fit is refused at its head: the head alone, then cancel",
            road: .whole(success: 10, failure: 10),
            events: [.head(200, ["Content-Length": "100"], expected: 100), .chunks(1, size: 5), .complete(.cancelled)],
            expected: ["handOutAndCancel(waiter, 200, 0 B)", "drop progress 5/100", "nothing"]),
        Row(
            name: "a HEAD request's declared length is no body", road: .whole(success: 10, failure: 10),
            method: .head, events: [.head(200, ["Content-Length": "100"], expected: 100), .complete(nil)],
            expected: ["none", "resume(waiter, 200, 0 B)"]),
    ]

    static let heldBack401: [Row] = [
        Row(
            name: "Linux: a 401 with a Basic challenge is held back with its body and delivered at the end",
            events: [.head(401, ["WWW-Authenticate": "Basic realm=x"]), .chunks(1, size: 5), .complete(nil)],
            expected: ["none", "drop", "resume(waiter, 401, 5 B) finish(writer, -)"]),
        Row(
            name: "Linux: the retried request's head replaces the held-back 401",
            events: [.head(401, ["WWW-Authenticate": "Digest realm=x"]), .head(200), .complete(nil)],
            expected: ["none", "handOut(waiter, 200, unread)", "finish(writer, -)"]),
        Row(
            name: "Linux: a Digest challenge after a Bearer one is held back too",
            events: [.head(401, ["WWW-Authenticate": "Bearer x, Digest realm=y"])], expected: ["none"]),
        Row(
            name: "Linux: a 401 without a Basic or Digest challenge is the answer at once",
            events: [.head(401, ["WWW-Authenticate": "Bearer realm=x"])], expected: ["handOut(waiter, 401, unread)"]),
        Row(
            name: "Apple: a 401 is never held back (the challenge comes first)", platform: .apple,
            events: [.head(401, ["WWW-Authenticate": "Basic realm=x"])], expected: ["handOut(waiter, 401, unread)"]),
        Row(
            name: "Linux: a held-back 401 keeps 64 KiB of its body",
            events: [.head(401, ["WWW-Authenticate": "Basic"]), .chunks(2, size: 40_000), .complete(nil)],
            expected: ["none", "2× drop", "resume(waiter, 401, 65536 B) finish(writer, -)"]),
        Row(
            name: "Linux: a held-back 401 on the whole road", road: .whole(success: 100, failure: 100),
            events: [.head(401, ["WWW-Authenticate": "Basic"]), .chunks(1, size: 3), .complete(nil)],
            expected: ["none", "drop", "resume(waiter, 401, 3 B)"]),
        Row(
            name: "Linux: a refused coding on a 401 goes before holding it back",
            events: [
                .head(401, ["WWW-Authenticate": "Basic", "Content-Encoding": "br"]), .complete(.cancelled),
            ],
            expected: ["failAndCancel(waiter, badResponse!)", "finish(writer, badResponse!)"]),
    ]

    static let bodies: [Row] = [
        Row(
            name: "a streamed chunk goes to the writer with its progress",
            events: [.head(200, expected: 10), .chunks(2, size: 3)],
            expected: ["handOut(waiter, 200, unread)", "stream(writer) progress 3/10, stream(writer) progress 6/10"]),
        Row(
            name: "no progress without an observer", progress: false,
            events: [.head(200, expected: 10), .chunks(1, size: 3)],
            expected: ["handOut(waiter, 200, unread)", "stream(writer)"]),
        Row(
            name: "a whole body is gathered and handed out at the end", road: .whole(success: 5, failure: 5),
            events: [.chunks(1, size: 1), .head(200, expected: 5), .chunks(2, size: 2), .complete(nil)],
            expected: [
                "drop progress 1/-", "none", "gathered progress 3/5, gathered progress 5/5", "resume(waiter, 200, 4 B)",
            ]),
        Row(
            name: "a whole body past its limit is cut at limit + 1 and handed out; later chunks are dropped",
            road: .whole(success: 4, failure: 4), progress: false,
            events: [.head(200), .chunks(1, size: 3), .chunks(1, size: 3), .chunks(1, size: 1), .complete(.cancelled)],
            expected: ["none", "gathered", "cut(waiter, 200, 5 B)", "drop", "nothing"]),
        Row(
            name: "a status outside 2xx is held to the failure limit", road: .whole(success: 100, failure: 2),
            progress: false, events: [.head(404), .chunks(1, size: 3)],
            expected: ["none", "cut(waiter, 404, 3 B)"]),
    ]

    static let stops: [Row] = [
        Row(
            name: "Linux: a flood of tiny chunks is stopped at its budget, as permanent", progress: false,
            tinyChunks: tenChunks,
            events: [.head(200), .chunks(10, size: 1), .chunks(2, size: 1), .complete(.cancelled)],
            expected: [
                "handOut(waiter, 200, unread)", "10× stream(writer)",
                "stop(badResponse!, -, writer), drop", "finish(writer, badResponse!)",
            ]),
        Row(
            name: "Linux: a flood on the whole road fails the waiter", road: .whole(success: 100, failure: 100),
            progress: false, tinyChunks: tenChunks,
            events: [.head(200), .chunks(11, size: 1), .complete(.cancelled)],
            expected: ["none", "10× gathered, stop(badResponse!, waiter, -)", "nothing"]),
        Row(
            name: "Linux: chunks of tinyBelow bytes or more cost nothing", progress: false, tinyChunks: tenChunks,
            events: [.head(200), .chunks(20, size: 1000)],
            expected: ["handOut(waiter, 200, unread)", "20× stream(writer)"]),
        Row(
            name: "Linux: tiny chunks slow enough to be freed never pass the budget", progress: false,
            tinyChunks: tenChunks, events: [.head(200), .chunks(30, size: 1, every: .seconds(1))],
            expected: ["handOut(waiter, 200, unread)", "30× stream(writer)"]),
        Row(
            name: "Apple: no per-chunk budget", platform: .apple, progress: false, tinyChunks: tenChunks,
            events: [.head(200), .chunks(20, size: 1)],
            expected: ["handOut(waiter, 200, unread)", "20× stream(writer)"]),
        Row(
            name: "a decoded body past 100 times its declared length is stopped as permanent",
            events: [
                .head(200, ["Content-Encoding": "gzip", "Content-Length": "1"]), .chunks(2, size: 60), .complete(nil),
            ],
            expected: [
                "handOut(waiter, 200, unread)", "stream(writer) progress 60/-, stop(badResponse!, -, writer)",
                "finish(writer, badResponse!)",
            ]),
        Row(
            name: "a decoded body stop on the whole road fails the waiter", road: .whole(success: 1000, failure: 1000),
            progress: false,
            events: [.head(200, ["Content-Encoding": "gzip", "Content-Length": "1"]), .chunks(1, size: 101)],
            expected: ["none", "stop(badResponse!, waiter, -)"]),
        Row(
            name: "a coded body without a declared length has no decoded bound", progress: false,
            events: [.head(200, ["Content-Encoding": "gzip"]), .chunks(1, size: 100_000)],
            expected: ["handOut(waiter, 200, unread)", "stream(writer)"]),
    ]

    static let resends: [Row] = [
        Row(
            name: "a body libcurl asks for again is made again", resend: .stream, events: [.resend],
            expected: ["makeStream"]),
        Row(
            name: "a body that cannot be made again stops the transfer as connectionReset", resend: .stream,
            events: [.resend, .resendFailed, .complete(.cancelled)],
            expected: ["makeStream", "stopped", "resume(waiter, connectionReset) finish(writer, connectionReset)"]),
        Row(
            name: "a request that must not be sent twice is refused", resend: .refuse,
            events: [.resend, .complete(.cancelled)],
            expected: ["refuse", "resume(waiter, connectionReset) finish(writer, connectionReset)"]),
        Row(name: "nothing to send again: refused", events: [.resend], expected: ["refuse"]),
        Row(
            name: "a resend after the head reports the stop as the body's end", resend: .refuse,
            events: [.head(200), .resend, .chunks(1, size: 3), .complete(.cancelled)],
            expected: ["handOut(waiter, 200, unread)", "refuse", "drop", "finish(writer, connectionReset)"]),
    ]

    static let completions: [Row] = [
        Row(
            name: "an end without a head says so", events: [.complete(nil)],
            expected: ["resume(waiter, badResponse) finish(writer, -)"]),
        Row(
            name: "a connection closed mid-body is connectionLost", events: [.head(200), .complete(.unknown)],
            expected: ["handOut(waiter, 200, unread)", "finish(writer, connectionLost)"]),
        Row(
            name: "the caller's cancellation before the head reaches waiter and writer",
            events: [.complete(.cancelled)],
            expected: ["resume(waiter, cancelled) finish(writer, cancelled)"]),
        Row(
            name: "the caller's cancellation after the head ends the body",
            events: [.head(200), .complete(.cancelled)],
            expected: ["handOut(waiter, 200, unread)", "finish(writer, cancelled)"]),
        Row(
            name: "a time-out before the head", events: [.complete(.timedOut)],
            expected: ["resume(waiter, timedOut) finish(writer, timedOut)"]),
        Row(
            name: "a whole body that ends without a head", road: .whole(success: 5, failure: 5),
            events: [.complete(nil)], expected: ["resume(waiter, badResponse)"]),
        Row(
            name: "a whole body cut short", road: .whole(success: 5, failure: 5), progress: false,
            events: [.head(200), .chunks(1, size: 2), .complete(.unknown)],
            // The head came: it is handed out, its body failing where it broke (the engine sees a cut body, not an
            // unanswered request it might send again).
            expected: ["none", "gathered", "resume(waiter, 200, -1 B)"]),
    ]

    static let uploads: [Row] = [
        Row(
            name: "sent bytes against the body's own length", uploadLength: 10, events: [.sent(4, expected: 0)],
            expected: ["sent 4/10"]),
        Row(name: "sent bytes against URLSession's total", events: [.sent(4, expected: 7)], expected: ["sent 4/7"]),
        Row(name: "a total of 0 is unknown", events: [.sent(4, expected: 0)], expected: ["sent 4/-"]),
        Row(name: "no observer, no report", progress: false, events: [.sent(4, expected: 7)], expected: ["none"]),
    ]

    @Test("heads", arguments: heads)
    func head(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("held-back 401", arguments: heldBack401)
    func heldBack(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("bodies", arguments: bodies)
    func body(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("tiny-chunk and decoded-size stops", arguments: stops)
    func stop(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("resends", arguments: resends)
    func resend(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("completion and cancellation", arguments: completions)
    func completion(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("upload progress", arguments: uploads)
    func upload(_ row: Row) { #expect(Self.run(row) == row.expected) }

    @Test("errors name the host, and a refused resend says why")
    func errorWords() throws {
        var configuration = Machine.Configuration(host: "api.example.com", resend: .refuse("not idempotent"))
        configuration.quirks = Platform.linux.quirks
        var machine = Machine(waiter: "waiter", road: .streamed("writer", unread: .empty), configuration: configuration)
        _ = machine.bodyRequestedAgain()
        let completion = machine.completed(with: URLError(.cancelled))
        let error = try #require(completion.finish?.1 as? TransportError)
        #expect(error.host == "api.example.com")
        #expect(error.detail == "not idempotent")
    }

    @Test(
        "what was sent is told once each, head first: a known length when reached, an unknown one with the answer",
        arguments: [
            // (has a body, its length, URLSession's reports (sent, expected), then the head's status; what is told)
            (false, Int64(0), [], [200], "head@head"),
            (true, 10, [(4, 10), (10, 10), (10, 10)], [200], "head@4 body(10)@10"),
            (true, nil, [(4, 0), (9, 0)], [200], "head@4 body(9)@head"),
            // An interim 100 Continue comes before the body: nothing is told until the final head.
            (true, 10, [], [100, 200], "head@head body(10)@head"),
            (true, 10, [(4, 10)], [100], "head@4"),
        ] as [(Bool, Int64?, [(Int64, Int64)], [Int], String)])
    func sentParts(
        _ hasBody: Bool, _ length: Int64?, _ reports: [(Int64, Int64)], _ heads: [Int], _ expected: String
    ) {
        var configuration = Machine.Configuration(tellsSent: true, hasBody: hasBody, uploadLength: length)
        configuration.quirks = Platform.linux.quirks
        var machine = Machine(waiter: "waiter", road: .streamed("writer", unread: .empty), configuration: configuration)
        var told: [String] = []
        func note(_ news: Machine.SentNews, at moment: String) {
            if news.head { told.append("head@\(moment)") }
            if let body = news.body { told.append("body(\(body))@\(moment)") }
        }
        for (sent, total) in reports {
            note(machine.sentParts(total: sent, expectedToSend: total), at: "\(sent)")
        }
        for status in heads { note(machine.sentParts(atHeadOf: status), at: "head") }
        #expect(told.joined(separator: " ") == expected)
    }

    @Test("nothing is told sent when nobody listens")
    func sentPartsUnheard() {
        var machine = Machine(
            waiter: "waiter", road: .streamed("writer", unread: .empty),
            configuration: Machine.Configuration(hasBody: true, uploadLength: 10))
        #expect(machine.sentParts(total: 10, expectedToSend: 10) == Machine.SentNews())
        #expect(machine.sentParts(atHeadOf: 200) == Machine.SentNews())
    }

    // MARK: Driver

    static func run(_ row: Row) -> [String] {
        let road: Machine.Road =
            switch row.road {
            case .streamed: .streamed("writer", unread: ResponseBody(data: unread))
            case .whole(let success, let failure): .whole(WholeBodyLimits(success: success, failure: failure))
            }
        let resend: SessionDelegate.BodyResend =
            switch row.resend {
            case .nothing: .nothingToSend
            case .stream: .stream { nil }
            case .refuse: .refuse("refused")
            }
        let configuration = Machine.Configuration(
            reportsProgress: row.progress, uploadLength: row.uploadLength, host: "example.com", method: row.method,
            resend: resend, tinyChunks: row.tinyChunks, quirks: row.platform.quirks)
        var machine = Machine(waiter: "waiter", road: road, configuration: configuration)
        var now = ContinuousClock.now
        return row.events.map { event in
            switch event {
            case .head(let status, let fields, let expected):
                let head = HTTPResponseHead(
                    statusCode: status,
                    headerFields: try! HTTPHeaderFields(
                        fields.sorted { $0.key < $1.key }.map {
                            (name: $0.key, value: $0.value)
                        }))
                return describe(
                    machine.receivedHead(
                        Machine.ReceivedHead(
                            head: head, expectedLength: expected, contentEncoding: fields["Content-Encoding"],
                            declaredLength: fields["Content-Length"].flatMap { Int64($0) },
                            wwwAuthenticate: fields["WWW-Authenticate"], at: now)))
            case .nonHTTP:
                return describe(machine.receivedNonHTTPHead())
            case .chunks(let count, let size, let every):
                var outcomes: [String] = []
                for _ in 0..<count {
                    now += every
                    let (action, progress) = machine.receivedChunk(Data(repeating: 0x61, count: size), at: now)
                    outcomes.append(
                        describe(action) + (progress.map { " progress \($0.received)/\(text($0.expected))" } ?? ""))
                }
                return runs(outcomes)
            case .sent(let sent, let expected):
                return machine.sentBody(total: sent, expectedToSend: expected).map {
                    "sent \($0.sent)/\(text($0.total))"
                }
                    ?? "none"
            case .resend:
                switch machine.bodyRequestedAgain() {
                case .makeStream: return "makeStream"
                case .refuse: return "refuse"
                }
            case .resendFailed:
                machine.bodyCouldNotBeReadAgain()
                return "stopped"
            case .complete(let code):
                return describe(machine.completed(with: code.map { URLError($0) }))
            }
        }
    }

    /// Equal outcomes in a row folded into one: "10× stream(writer)".
    static func runs(_ outcomes: [String]) -> String {
        var folded: [(String, Int)] = []
        for outcome in outcomes {
            if folded.last?.0 == outcome { folded[folded.count - 1].1 += 1 } else { folded.append((outcome, 1)) }
        }
        return folded.map { $0.1 == 1 ? $0.0 : "\($0.1)× \($0.0)" }.joined(separator: ", ")
    }

    static func text(_ value: Int64?) -> String { value.map { "\($0)" } ?? "-" }

    static func describe(_ response: TransportResponse) -> String {
        let body = response.body.bufferedData
        let words = body == unread ? "unread" : "\(body?.count ?? -1) B"
        return "\(response.statusCode), \(words)"
    }

    /// An error as the tables name it: a transport error's kind (`!` when it is permanent), or what else it is.
    static func describe(_ error: (any Error)?) -> String {
        guard let error else { return "-" }
        if let error = error as? TransportError { return "\(error.kind)" + (error.isPermanent ? "!" : "") }
        if case .invalidResponse? = error as? NetworkError { return "invalidResponse" }
        return "\(error)"
    }

    static func describe(_ action: Machine.HeadAction) -> String {
        switch action {
        case .none: "none"
        case .handOut(let waiter, let response): "handOut(\(waiter), \(describe(response)))"
        case .handOutAndCancel(let waiter, let response): "handOutAndCancel(\(waiter ?? "-"), \(describe(response)))"
        case .failAndCancel(let waiter, let error): "failAndCancel(\(waiter ?? "-"), \(describe(error)))"
        }
    }

    static func describe(_ action: Machine.ChunkAction) -> String {
        switch action {
        case .drop: "drop"
        case .stream(let writer): "stream(\(writer))"
        case .gathered: "gathered"
        case .cut(let waiter, let response): "cut(\(waiter ?? "-"), \(describe(response)))"
        case .stop(let error, let waiter, let writer):
            "stop(\(describe(error)), \(waiter ?? "-"), \(writer ?? "-"))"
        }
    }

    static func describe(_ completion: Machine.Completion) -> String {
        var parts: [String] = []
        if let (waiter, outcome) = completion.resume {
            switch outcome {
            case .success(let response): parts.append("resume(\(waiter), \(describe(response)))")
            case .failure(let error): parts.append("resume(\(waiter), \(describe(error)))")
            }
        }
        if let (writer, error) = completion.finish { parts.append("finish(\(writer), \(describe(error)))") }
        return parts.isEmpty ? "nothing" : parts.joined(separator: " ")
    }
}
