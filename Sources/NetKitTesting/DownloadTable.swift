import Foundation
import LoopbackServer
import NetCore
import NetKitDigest
import NetKitLock
import NetStreaming

/// Resumable downloads against a range-serving server on 127.0.0.1, and what NetKit makes of each case over a given
/// transport: the executable download rows of Docs/Reliability.md.
///
/// Each row starts its own ``LoopbackServer/LoopbackRangedResource`` of 300,000 bytes in a scratch directory of its
/// own, downloads it through a ``NetCore/RequestExecutor`` over the transport, and reports in a line what happened:
/// whether the file at the destination is the resource byte for byte, what each request asked for (`rest` for a range
/// that starts at a length the partial file had), and how many body bytes the server sent. Every transport must report
/// the same line, which is the row's ``Row/expected``.
///
/// What differs between transports is how much of a cut response reaches NetKit: URLSession hands over every byte
/// read before the connection broke; AsyncHTTPClient drops the bytes it had read but not yet handed over (tens of
/// KiB). Those bytes are fetched again by the resume: the line counts them apart ("lost in flight", each within
/// 256 KiB per cut, or the line says how many), so that every other byte sent twice still shows.
package enum DownloadTable {
    /// The resource's length.
    package static let byteCount = 300_000

    /// One case.
    package struct Row: Sendable {
        /// The row's name in the table.
        package let name: String
        /// The line every transport must report.
        package let expected: String
        /// Plays the case.
        let play: @Sendable (Rig) async throws -> String
    }

    /// A server, a scratch directory and the engine of one row.
    package struct Rig: Sendable {
        let resource: LoopbackRangedResource
        let executor: RequestExecutor
        let baseURL: URL
        let destination: URL
        /// Every length the partial file was seen to have: told by progress, by a failure, or staged.
        let lengths = Lengths()

        /// A set shared by the rig's copies and the progress closures.
        final class Lengths: Sendable {
            private let seen = Lock<Set<Int64>>([0])
            func insert(_ length: Int64) { seen.withLock { _ = $0.insert(length) } }
            var all: Set<Int64> { seen.withLock { $0 } }
        }

        /// Downloads the resource with `retries` resumes allowed in a row.
        func download(retries: Int = 0, signature: String? = nil, options: DownloadOptions = DownloadOptions())
            async throws -> DownloadedFile
        {
            try await executor.download(
                FileRequest(retries: retries, signature: signature), baseURL: baseURL, to: destination,
                options: options,
                progress: { [lengths] progress in lengths.insert(progress.completedBytes) })
        }

        /// Downloads, and says how it ended in a few words.
        func attempt(retries: Int = 0, signature: String? = nil, options: DownloadOptions = DownloadOptions()) async
            -> String
        {
            do {
                let file = try await download(retries: retries, signature: signature, options: options)
                return file.byteCount == Int64(DownloadTable.byteCount) && isIntact() ? "complete" : "WRONG FILE"
            } catch let error as DownloadError {
                switch error {
                case .interrupted(let state, _):
                    lengths.insert(state.bytesOnDisk)
                    return "interrupted"
                case .diskFull(_, let state):
                    lengths.insert(state.bytesOnDisk)
                    return "disk full at \(state.bytesOnDisk)"
                case .checksumMismatch(let source, _, _): return "\(source) mismatch"
                default: return "\(error)"
                }
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(type(of: error))"
            }
        }

        /// Whether the destination holds the resource byte for byte (and nothing was left beside it).
        func isIntact() -> Bool {
            guard let data = try? Data(contentsOf: destination), data.count == DownloadTable.byteCount else {
                return false
            }
            let partial = DownloadOptions.partialFile(for: destination)
            return SHA256.hash(data) == LoopbackRangedResource.patternSHA256(from: 0, count: DownloadTable.byteCount)
                && !FileManager.default.fileExists(atPath: partial.path)
                && !FileManager.default.fileExists(atPath: DownloadOptions.stateFile(for: partial).path)
        }

        /// The report of a row: its steps, what each request asked for (a run of the same answer once, with `+`), the
        /// body bytes sent less what cuts lost in flight (from the requests from the `sentFrom`th on, when what the
        /// first sent depends on the transport's buffers).
        func report(_ steps: String..., sentFrom first: Int = 0) -> String {
            let seen = resource.requests
            let known = lengths.all
            var asked: [String] = []
            var lost = 0
            for (index, request) in seen.enumerated() {
                let start = request.range.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) }
                let label =
                    request.range.map { range in
                        start.map { known.contains($0) } == true ? "rest" : range + " (not a length on disk)"
                    } ?? "whole"
                let entry = label + " → \(request.status)"
                if asked.last == entry || asked.last == entry + "+" {
                    asked[asked.count - 1] = entry + "+"
                } else {
                    asked.append(entry)
                }
                // A resume after a cut asks again for what the cut response sent but never reached the file.
                if index > 0, let start {
                    let previous = seen[index - 1]
                    let previousStart =
                        previous.status == 206
                        ? previous.range.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) } ?? 0 : 0
                    if previous.bodyBytesSent < previous.declaredLength, index > first {
                        lost += max(0, Int(previousStart) + previous.bodyBytesSent - Int(start))
                    }
                }
            }
            let cuts = seen.filter { $0.bodyBytesSent < $0.declaredLength }.count
            let sent = seen.dropFirst(first).reduce(0) { $0 + $1.bodyBytesSent } - lost
            let lostNote = lost <= cuts * 256 * 1024 ? "" : " (lost in flight: \(lost))"
            return steps.joined(separator: ", ") + "; asked: " + asked.joined(separator: ", ")
                + (first == 0 ? "; sent \(sent)" : "; sent from request \(first + 1) on: \(sent)") + lostNote
        }
    }

    /// A `GET /file` whose retry policy allows `retries` retries at once.
    struct FileRequest: Endpoint {
        typealias Response = Data
        let retries: Int
        /// A signed link's signature, as a query value: another URL for the same resource.
        var signature: String?
        var path: String { "/file" }
        var queryParameters: [String: String]? { signature.map { ["signature": $0] } }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0.001, jitter: .none) }
    }

    private static func row(
        _ name: String, _ expected: String, _ play: @escaping @Sendable (Rig) async throws -> String
    )
        -> Row
    {
        Row(name: name, expected: expected, play: play)
    }

    /// Every case.
    package static let rows: [Row] = [
        row("a whole download", "complete; asked: whole → 200; sent 300000") { rig in
            rig.report(await rig.attempt())
        },
        row(
            "two cuts, resumed within the retry policy",
            "complete; asked: whole → 200, rest → 206+; sent 300000"
        ) { rig in
            rig.resource.cuts = [100_000, 50_000]
            return rig.report(await rig.attempt(retries: 1))
        },
        row(
            "a cut without retries, resumed by the next call",
            "interrupted, complete; asked: whole → 200, rest → 206; sent 300000"
        ) { rig in
            rig.resource.cuts = [100_000]
            return rig.report(await rig.attempt(), await rig.attempt())
        },
        row(
            "a new URL for the same resource (a re-signed link), the state passed on",
            "interrupted, complete; asked: whole → 200, rest → 206; sent 300000; the second URL signed b"
        ) { rig in
            rig.resource.cuts = [100_000]
            var state: DownloadResumeState?
            do {
                _ = try await rig.download(signature: "a")
            } catch DownloadError.interrupted(let resumeState, _) {
                state = resumeState
                rig.lengths.insert(resumeState.bytesOnDisk)
            }
            // The state the caller kept, with the file NetKit saved beside it removed: only the value resumes.
            try? FileManager.default.removeItem(
                at: DownloadOptions.stateFile(for: DownloadOptions.partialFile(for: rig.destination)))
            let second = await rig.attempt(signature: "b", options: DownloadOptions(resumeState: state))
            let signed = rig.resource.requests.last?.target.split(separator: "=").last.map(String.init) ?? "?"
            return rig.report(state == nil ? "NOT INTERRUPTED" : "interrupted", second) + "; the second URL signed "
                + signed
        },
        row(
            "200 instead of 206: starts over",
            "interrupted, complete; asked: whole → 200, rest → 200; sent from request 2 on: 300000"
        ) { rig in
            rig.resource.cuts = [100_000]
            let first = await rig.attempt()
            rig.resource.ignoresRanges = true
            // How much of the cut response went out depends on the transport's reads: the new version is counted.
            return rig.report(first, await rig.attempt(), sentFrom: 1)
        },
        row(
            "a changed ETag: starts over",
            "interrupted, complete; asked: whole → 200, rest → 200; sent from request 2 on: 300000"
        ) { rig in
            rig.resource.cuts = [100_000]
            let first = await rig.attempt()
            rig.resource.etag = "\"v2\""
            // How much of the cut response went out depends on the transport's reads: the new version is counted.
            return rig.report(first, await rig.attempt(), sentFrom: 1)
        },
        row(
            "no Accept-Ranges: starts over without asking for a range",
            "interrupted, complete; asked: whole → 200+; sent 400000"
        ) { rig in
            rig.resource.acceptsRanges = false
            rig.resource.cuts = [100_000]
            return rig.report(await rig.attempt(), await rig.attempt())
        },
        row(
            "a weak ETag only: starts over without asking for a range",
            "interrupted, complete; asked: whole → 200+; sent 400000"
        ) { rig in
            rig.resource.etag = "W/\"v1\""
            rig.resource.lastModified = nil
            rig.resource.cuts = [100_000]
            return rig.report(await rig.attempt(), await rig.attempt())
        },
        row(
            "Last-Modified as the validator",
            "interrupted, complete; asked: whole → 200, rest → 206; sent 300000"
        ) { rig in
            rig.resource.etag = nil
            rig.resource.cuts = [100_000]
            return rig.report(await rig.attempt(), await rig.attempt())
        },
        row(
            "every response truncated: resumed until complete",
            "complete; asked: whole → 200, rest → 206+; sent 300000"
        ) { rig in
            rig.resource.truncatesTo = 120_000
            return rig.report(await rig.attempt(retries: 1))
        },
        row(
            "416 for a file already complete",
            "interrupted, complete; asked: whole → 200, rest → 206; sent 300000"
        ) { rig in
            // The last byte missing: the resumed request gets it. Then a 416 for a complete partial is the next row.
            rig.resource.cuts = [299_999]
            return rig.report(await rig.attempt(), await rig.attempt())
        },
        row(
            "416 naming the length on disk: complete without a body",
            "complete; asked: rest → 416; sent 0"
        ) { rig in
            try rig.stagePartial(bytes: DownloadTable.byteCount, totalBytes: Int64(DownloadTable.byteCount))
            return rig.report(await rig.attempt())
        },
        row(
            "416 naming another length: starts over",
            "complete; asked: rest → 416, whole → 200; sent 300000"
        ) { rig in
            try rig.stagePartial(bytes: DownloadTable.byteCount + 10, totalBytes: nil)
            return rig.report(await rig.attempt(retries: 1))
        },
        row(
            "a full disk keeps what was written; the next call resumes",
            "disk full at 100000, complete; asked: whole → 200, rest → 206; sent from request 2 on: 200000"
        ) { rig in
            // The server sends on into the socket's buffers after the disk refuses: only the resume's bytes count.
            var full = DownloadOptions()
            full.simulatedDiskCapacity = 100_000
            return rig.report(await rig.attempt(options: full), await rig.attempt(), sentFrom: 1)
        },
        row(
            "a Repr-Digest checked over a resumed download",
            "complete; asked: whole → 200, rest → 206; sent 300000"
        ) { rig in
            rig.resource.sendsReprDigest = true
            rig.resource.cuts = [100_000]
            return rig.report(await rig.attempt(retries: 1))
        },
        row(
            "a corrupted byte against Repr-Digest: discarded, then fetched again whole",
            "Repr-Digest mismatch, complete; asked: whole → 200+; sent 600000"
        ) { rig in
            rig.resource.sendsReprDigest = true
            rig.resource.corruptsByteAt = 1234
            let first = await rig.attempt()
            rig.resource.corruptsByteAt = nil
            return rig.report(first, await rig.attempt())
        },
        row(
            "a corrupted 206 against its Content-Digest: that part discarded, then fetched again",
            "Content-Digest mismatch, complete; asked: rest → 206+; sent 400000"
        ) { rig in
            rig.resource.sendsContentDigest = true
            rig.resource.corruptsByteAt = 200_000
            try rig.stagePartial(bytes: 100_000, totalBytes: Int64(DownloadTable.byteCount))
            let first = await rig.attempt()
            rig.resource.corruptsByteAt = nil
            return rig.report(first, await rig.attempt())
        },
        row(
            "an expected SHA-256 that does not match: nothing at the destination",
            "DownloadOptions.expectedSHA256 mismatch, no file; asked: whole → 200; sent 300000"
        ) { rig in
            let outcome = await rig.attempt(options: DownloadOptions(expectedSHA256: String(repeating: "0", count: 64)))
            let exists = FileManager.default.fileExists(atPath: rig.destination.path)
            return rig.report(outcome, exists ? "A FILE" : "no file")
        },
        row(
            "a cancelled task saves its state; the next call resumes",
            "cancelled, complete; asked: whole → 200, the rest from at least the bytes on disk at the cancel → 206 "
                + "(416 when nothing is missing); sent ≤ 300000 + one read"
        ) { rig in
            // Cancelled from its progress once 100,000 bytes are on disk: how many more arrive depends on the
            // transport's reads (a transport that cannot stop at once has what it still receives written after the
            // call), so the line says the resume asked from no earlier than the bytes on disk and re-fetched nothing.
            let task = Task {
                try await rig.executor.download(
                    FileRequest(retries: 0), baseURL: rig.baseURL, to: rig.destination,
                    progress: { progress in
                        if progress.completedBytes >= 100_000 { withUnsafeCurrentTask { $0?.cancel() } }
                    })
            }
            let first: String
            do {
                _ = try await task.value
                first = "NOT CANCELLED"
            } catch is CancellationError {
                first = "cancelled"
            } catch {
                first = "\(error)"
            }
            let partial = DownloadOptions.partialFile(for: rig.destination)
            let onDisk = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? -1
            let second = await rig.attempt()
            let seen = rig.resource.requests
            let resumedFrom = seen.count == 2 ? seen[1].range.flatMap { Int($0.dropFirst(6).dropLast()) } : nil
            let resumedAtDisk =
                resumedFrom.map { $0 >= onDisk && onDisk >= 100_000 } == true && [206, 416].contains(seen[1].status)
            let asked =
                resumedAtDisk
                ? "whole → 200, the rest from at least the bytes on disk at the cancel → 206 (416 when nothing is missing)"
                : seen.map { "\($0.range ?? "whole") → \($0.status)" }.joined(separator: ", ")
            let sentOK = resumedFrom.map {
                rig.resource.bodyBytesSent - seen[0].bodyBytesSent + $0 == DownloadTable.byteCount
            }
            return "\(first), \(second); asked: \(asked); sent "
                + (sentOK == true ? "≤ 300000 + one read" : "\(rig.resource.bodyBytesSent)")
        },
    ]

    /// Runs `row` against `transport` and returns its line.
    package static func run(_ row: Row, on transport: any HTTPTransport) async throws -> String {
        let resource = LoopbackRangedResource(byteCount: byteCount)
        let server = try LoopbackServer { request in resource.respond(to: request) }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rig = Rig(
            resource: resource, executor: RequestExecutor(transport: transport), baseURL: server.baseURL,
            destination: directory.appendingPathComponent("file.bin"))
        return try await row.play(rig)
    }
}

extension DownloadTable.Rig {
    /// Puts `bytes` bytes of the resource in the partial file, with the state a download that got them saved.
    func stagePartial(bytes: Int, totalBytes: Int64?) throws {
        let partial = DownloadOptions.partialFile(for: destination)
        try LoopbackBodyPattern.data(count: bytes).write(to: partial)
        let state = DownloadResumeState(
            partialFile: partial, bytesOnDisk: Int64(bytes), validator: .entityTag(LoopbackRangedResource.defaultETag),
            totalBytes: totalBytes, acceptsRanges: true)
        try JSONEncoder().encode(state).write(to: DownloadOptions.stateFile(for: partial))
        lengths.insert(Int64(bytes))
    }
}
