import Foundation
import NetCore
import NetKitLock

/// A transport that answers from a HAR file: the exchanges ``HARRecordingTransport`` recorded, or a HAR that a
/// browser's developer tools exported.
///
/// Each request is answered by the first recorded exchange that every matcher accepts (``HARMatcher/standard``: the
/// method and the URL) and that has not answered yet; once every such exchange has answered, the last one answers
/// again. A streamed body is delivered in the chunks it was recorded in (`_chunks`), optionally with their timing
/// (`replaysTiming`), so code that reads Server-Sent Events or NDJSON runs as it did against the server; a body kept
/// in a file beside the archive (`_file`) is read piece by piece, never whole.
///
/// A request nothing matches fails with ``HARReplayMismatch``, which names the nearest recorded request and how the
/// two differ, and is kept in ``unmatchedRequests``; or, with ``UnmatchedRequests/passThrough(_:)``, goes to a live
/// transport.
///
/// ```swift
/// let replay = try HARReplayTransport(contentsOf: fixtureURL)
/// replay.fault(.closeMidBody(afterBytes: 100), when: .path("/v1/export"))
/// let manager = NetworkManager(baseURL: URL(string: "https://api.example.com")!, transport: replay)
/// ```
///
/// The response bodies of a HAR are decoded (what the server's `Content-Encoding` coded, the HAR holds plain, as a
/// transport hands it over); a recorded `Content-Length` that disagrees with the body replayed is corrected.
public final class HARReplayTransport: HTTPTransport {
    /// What happens to a request that no recorded exchange answers.
    public enum UnmatchedRequests: Sendable {
        /// It fails with ``HARReplayMismatch`` (strict replay).
        case fail
        /// It goes to this transport (a live one), and its answer comes back unrecorded.
        case passThrough(any HTTPTransport)
    }

    private let archive: HARArchive
    private let name: String
    private let baseDirectory: URL?
    private let matchers: [HARMatcher]
    private let unmatched: UnmatchedRequests
    private let replaysTiming: Bool
    private let clock: any Clock<Duration>
    private let state = Lock<State>(State())

    private struct State {
        var answered: [Int] = []
        var unmatched: [StubTransport.RecordedRequest] = []
        var faults: [(conditions: [StubCondition], fault: StubFault, remaining: Int?)] = []
    }

    /// A replay of `archive`.
    /// - Parameters:
    ///   - archive: The exchanges to answer from.
    ///   - baseDirectory: Where the files that bodies kept beside the archive (`_file`) are named relative to;
    ///     `nil` when there are none.
    ///   - matchers: What a request must agree with an exchange on.
    ///   - unmatched: What a request nothing answers does: fail (the default) or go to a live transport.
    ///   - replaysTiming: Whether to wait as the recording did: before the head (its `wait` time) and between the
    ///     body's chunks. Off by default: a replay answers at once.
    ///   - clock: What waits are slept on, so a test can pass one that does not sleep.
    public convenience init(
        archive: HARArchive,
        baseDirectory: URL? = nil,
        matchers: [HARMatcher] = HARMatcher.standard,
        unmatched: UnmatchedRequests = .fail,
        replaysTiming: Bool = false,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            archive: archive, named: "the archive", baseDirectory: baseDirectory, matchers: matchers,
            unmatched: unmatched, replaysTiming: replaysTiming, clock: clock)
    }

    /// A replay of the HAR file at `fileURL`; bodies kept beside it are found relative to its folder.
    /// - Throws: the file system's error, or a `DecodingError` naming the field that did not fit.
    public convenience init(
        contentsOf fileURL: URL,
        matchers: [HARMatcher] = HARMatcher.standard,
        unmatched: UnmatchedRequests = .fail,
        replaysTiming: Bool = false,
        clock: any Clock<Duration> = ContinuousClock()
    ) throws {
        try self.init(
            archive: HARArchive(contentsOf: fileURL), named: fileURL.lastPathComponent,
            baseDirectory: fileURL.deletingLastPathComponent(), matchers: matchers, unmatched: unmatched,
            replaysTiming: replaysTiming, clock: clock)
    }

    private init(
        archive: HARArchive, named name: String, baseDirectory: URL?, matchers: [HARMatcher],
        unmatched: UnmatchedRequests, replaysTiming: Bool, clock: any Clock<Duration>
    ) {
        self.archive = archive
        self.name = name
        self.baseDirectory = baseDirectory
        self.matchers = matchers
        self.unmatched = unmatched
        self.replaysTiming = replaysTiming
        self.clock = clock
        state.withLock { $0.answered = Array(repeating: 0, count: archive.log.entries.count) }
    }

    /// Makes the answers to requests that meet every one of `conditions` misbehave as `fault` says: the first fault
    /// registered whose conditions hold, and that has answers left, applies.
    /// - Parameters:
    ///   - fault: How the answers misbehave.
    ///   - conditions: What a request must meet for its answer to misbehave (every request, when there are none).
    ///   - times: How many answers misbehave (`1`: the first fails, a retry gets the recorded answer); `nil`, the
    ///     default: every one.
    public func fault(_ fault: StubFault, when conditions: StubCondition..., times: Int? = nil) {
        precondition(times.map { $0 > 0 } ?? true, "A fault applies to at least one answer (times: \(times ?? 0)).")
        state.withLock { $0.faults.append((conditions, fault, times)) }
    }

    /// The requests no recorded exchange answered, in order (those passed through included).
    public var unmatchedRequests: [StubTransport.RecordedRequest] { state.withLock { $0.unmatched } }

    /// The recorded exchanges that have not answered any request yet, in the archive's order: a test can check that
    /// its code still makes every request the fixture holds.
    public var unusedEntries: [HAREntry] {
        let answered = state.withLock { $0.answered }
        return zip(archive.log.entries, answered).filter { $0.1 == 0 }.map(\.0)
    }

    /// Accepts every connection setting: a replay connects nowhere (a request passed through to a live transport
    /// is checked by that transport when it sends it).
    public func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        nil
    }

    /// Answers `request` from the first matching exchange.
    /// - Throws: ``HARReplayMismatch`` for a request nothing answers (strict replay); the fault's error; the live
    ///   transport's, when the request passes through.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let recorded = try StubTransport.receive(request)
        let body = recorded.body
        guard let index = claimEntry(for: recorded) else {
            state.withLock { $0.unmatched.append(recorded) }
            switch unmatched {
            case .fail:
                throw mismatch(for: recorded)
            case .passThrough(let live):
                var forwarded = request
                if let sent = request.body, !sent.isReplayable {
                    // A stream was read to be matched: what goes on is the bytes it held.
                    forwarded.body = UploadSource(data: body)
                }
                return try await live.send(forwarded)
            }
        }
        var reply = try reply(for: archive.log.entries[index], method: request.method)
        if let fault = takeFault(for: recorded) { reply = reply.fault(fault) }
        var answered = request
        if let sent = request.body, sent.inMemoryData == nil {
            // The body was read to be matched: the reply reports what it sent from bytes it can count.
            answered.body = UploadSource(data: body)
        }
        return try await reply.response(to: answered, clock: clock)
    }

    /// The fault for `request`, counted as used; `nil` when none applies.
    private func takeFault(for request: StubTransport.RecordedRequest) -> StubFault? {
        state.withLock { state in
            guard
                let index = state.faults.firstIndex(where: { entry in
                    entry.remaining != 0 && entry.conditions.allSatisfy { $0.matches(request) }
                })
            else { return nil }
            state.faults[index].remaining? -= 1
            return state.faults[index].fault
        }
    }

    /// The index of the exchange that answers `request`, counted as answered; `nil` when none matches.
    private func claimEntry(for request: StubTransport.RecordedRequest) -> Int? {
        let candidates = archive.log.entries.indices.filter { index in
            matchers.allSatisfy { $0.differences(request, archive.log.entries[index]).isEmpty }
        }
        guard let last = candidates.last else { return nil }
        return state.withLock { state in
            let index = candidates.first { state.answered[$0] == 0 } ?? last
            state.answered[index] += 1
            return index
        }
    }

    /// The reply an exchange gives: its status, fields and body, chunked (and timed) as recorded.
    private func reply(for entry: HAREntry, method: HTTPRequestMethod) throws -> StubTransport.Reply {
        let response = entry.response
        guard response.status > 0 else {
            // Browsers write status 0 for a request that got no response; NetKit's recorder does too, with the
            // error in the comment.
            return .failure(TransportError(.connectionReset))
        }
        var reply = StubTransport.Reply(status: response.status)
        let chunkSizes = response.content.chunks?.map(\.size)
        var bodyLength: Int64
        if let file = response.content.file {
            guard let baseDirectory else { throw HARReplayError.bodyFileWithoutFolder(file) }
            // A HAR can come from anywhere (a browser, a colleague): its bodies are read from beside it, never from
            // a path that climbs out of its folder or starts from the root.
            let components = file.split(separator: "/", omittingEmptySubsequences: false)
            guard !file.hasPrefix("/"), !file.contains("\\"), !components.contains(".."), !components.contains("")
            else { throw HARReplayError.bodyFileOutsideFolder(file) }
            let url = baseDirectory.appendingPathComponent(file)
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            bodyLength = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            reply.bodyFile = url
            reply.chunkSizes = chunkSizes
        } else {
            let data = response.content.inlineData ?? Data()
            bodyLength = Int64(data.count)
            reply.chunks = Self.split(data, sizes: chunkSizes)
        }
        if replaysTiming {
            if entry.timings.wait > 0 { reply.delay = .milliseconds(entry.timings.wait) }
            if let chunks = response.content.chunks {
                var previous = 0.0
                reply.chunkDelays = chunks.map { chunk in
                    defer { previous = chunk.time }
                    return .milliseconds(max(0, chunk.time - previous))
                }
            }
        }
        // A response to HEAD, a 1xx, 204 or 304 has no body, whatever length its head names.
        let hasBody = method != .head && response.status >= 200 && response.status != 204 && response.status != 304
        for field in response.headers {
            if hasBody, field.name.lowercased() == "content-length" {
                // The HAR's body is decoded: a length counted before decoding, or a browser's, would lie about it.
                reply.additionalHeaders.append((field.name, String(bodyLength)))
            } else {
                reply.additionalHeaders.append((field.name, field.value))
            }
        }
        return reply
    }

    /// `data` cut into pieces of `sizes`, when they add up to its length; else whole.
    private static func split(_ data: Data, sizes: [Int]?) -> [Data] {
        guard let sizes, !sizes.isEmpty, sizes.allSatisfy({ $0 >= 0 }), sizes.reduce(0, +) == data.count else {
            return data.isEmpty ? [] : [data]
        }
        var offset = data.startIndex
        return sizes.map { size in
            defer { offset += size }
            return data[offset..<offset + size]
        }
    }

    /// ``HARReplayMismatch`` for `request`, naming the nearest recorded request and how it differs.
    private func mismatch(for request: StubTransport.RecordedRequest) -> HARReplayMismatch {
        let scored = archive.log.entries.enumerated().map { index, entry in
            (index, entry, matchers.flatMap { $0.differences(request, entry) })
        }
        let nearest = scored.min { $0.2.count < $1.2.count }
        return HARReplayMismatch(
            method: request.method.rawValue,
            url: LogRedaction.target(request.head),
            archive: name,
            entryCount: archive.log.entries.count,
            matchers: matchers.map(\.description),
            nearest: nearest.map { index, entry, differences in
                HARReplayMismatch.Nearest(
                    index: index, method: entry.request.method, url: entry.request.url, differences: differences)
            })
    }
}
