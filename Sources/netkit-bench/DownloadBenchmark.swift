import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import LoopbackServer
import NetKit
import NetKitDigest
import NetKitLock
#if AsyncHTTPClient
import NetAsyncHTTPClient
#endif

// `downloads`: resumable downloads (`NetworkManager.download`, URLSession transport) over loopback, against a
// `LoopbackRangedResource` served by this process; every download runs in a fresh child process whose peak RSS
// (VmHWM), CPU time (getrusage) and wall time are its own. An idle child that downloaded a 4 KiB file is the memory
// reference. Not part of `all`.
//
// 1. Resume: one download of the whole file cut 20 times at random offsets (seeded; one offset in each twentieth of
//    the file): 10 server-side cuts (the resource's `cuts`, absorbed within a call by the request's retry policy)
//    and 10 client cancellations (the child cancels its own download task from the `progress` callback and calls
//    `download` again, as a relaunched app would). The server's log gives the requests, the overlap (bytes sent for
//    offsets the client already had on disk when it asked) and the in-flight overshoot (bytes the server's sockets
//    took that the client never wrote: lost in kernel and transport buffers at a cut).
// 2. Cancellation without NetKit: a raw URLSession `dataTask` cancelled at the same client offsets, to show how much
//    FoundationNetworking itself reads on after `cancel()` (its share of the overshoot of the client cancellations).
// 3. Throughput: the same file without cuts, NetKit `download` against a raw URLSession `downloadTask` (and the same
//    followed by the fsync NetKit does before its rename), interleaved rounds, each download in a fresh child.
//
//   netkit-bench downloads [rounds]                          (rounds of the throughput case, 3 by default; 1 GiB)
//   NETKIT_BENCH_DOWNLOAD_MIB=256 netkit-bench downloads 3   (a smaller file for a quick look)
//   NETKIT_BENCH_DOWNLOAD_SEED=<n>                           (the cut offsets of an earlier run)

/// Runs the `downloads` case or, in a child, one download. Returns `true` when it did either.
func runDownloadBenchmarks(selected: String, arguments: [String], rounds: Int) async throws -> Bool {
    switch selected {
    case DownloadChild.command:
        try await DownloadChild.run(Array(arguments.dropFirst()))
        return true
    case "downloads":
        do {
            try await DownloadBenchmark(rounds: arguments.count > 1 ? max(1, rounds) : 3).run()
        } catch {
            FileHandle.standardError.write(Data("downloads: \(error)\n".utf8))
            exit(1)
        }
        return true
    default:
        return false
    }
}

/// The parent side: the servers, the children, the tables.
struct DownloadBenchmark {
    let rounds: Int
    static let environment = ProcessInfo.processInfo.environment
    let mebibytes = max(1, DownloadBenchmark.environment["NETKIT_BENCH_DOWNLOAD_MIB"].flatMap(Int.init) ?? 1024)
    var fileBytes: Int { mebibytes << 20 }
    /// Cuts of each kind.
    static let serverCuts = 10
    static let clientCancellations = 10
    /// Retries the download request's policy allows in a row: what absorbs a server cut within one call.
    static let retries = 3

    /// `NETKIT_BENCH_DOWNLOAD_TRANSPORT`: `urlsession` (the default), or `asynchttpclient` in a bench built with the
    /// AsyncHTTPClient trait. The raw baselines are URLSession's either way.
    static let transportName = ProcessInfo.processInfo.environment["NETKIT_BENCH_DOWNLOAD_TRANSPORT"] ?? "urlsession"
    static let asyncHTTPClientName = "asynchttpclient"

    func run() async throws {
        #if !AsyncHTTPClient
        if Self.transportName == Self.asyncHTTPClientName {
            throw UploadChild.Failure(
                description:
                    "NETKIT_BENCH_DOWNLOAD_TRANSPORT=asynchttpclient needs a bench built with --traits AsyncHTTPClient")
        }
        #endif
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-bench-downloads-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed =
            Self.environment["NETKIT_BENCH_DOWNLOAD_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...9_999_999)

        let resource = LoopbackRangedResource(byteCount: fileBytes)
        let server = try LoopbackServer { resource.respond(to: $0) }
        defer { server.stop() }
        let small = LoopbackRangedResource(byteCount: 4096)
        let smallServer = try LoopbackServer { small.respond(to: $0) }
        defer { smallServer.stop() }
        let expectedSHA256 = SHA256.hex(LoopbackRangedResource.patternSHA256(from: 0, count: fileBytes))

        let transport = Self.transportName == Self.asyncHTTPClientName ? "AsyncHTTPClient" : "URLSession"
        print("## downloads: \(mebibytes) MiB over loopback, NetKit `download` (\(transport) transport)")
        print("")
        print("```")
        print(
            Self.transportName == Self.asyncHTTPClientName
                ? "swift build -c release --product netkit-bench --traits AsyncHTTPClient --scratch-path .build-ahc && NETKIT_BENCH_DOWNLOAD_TRANSPORT=asynchttpclient NETKIT_BENCH_DOWNLOAD_MIB=\(mebibytes) NETKIT_BENCH_DOWNLOAD_SEED=\(seed) .build-ahc/release/netkit-bench downloads \(rounds)"
                : "swift build -c release --product netkit-bench && NETKIT_BENCH_DOWNLOAD_MIB=\(mebibytes) NETKIT_BENCH_DOWNLOAD_SEED=\(seed) .build/release/netkit-bench downloads \(rounds)"
        )
        print("```")
        print(
            "\(ProcessInfo.processInfo.activeProcessorCount) cores; server: `LoopbackRangedResource` in the parent process; every download in a fresh child process (peak RSS = its VmHWM, CPU = its user + system time); files in \(FileManager.default.temporaryDirectory.path); seed \(seed)."
        )
        print("")
        fflush(nil)

        var idleRuns: [DownloadChild.Result] = []
        for _ in 0..<3 {
            let destination = directory.appendingPathComponent("idle.bin")
            idleRuns.append(try runChild(.idle, server: smallServer.baseURL, destination: destination))
            removeDownload(at: destination)
        }
        let idle = Idle(
            peakKiB: median(idleRuns.map(\.peakKiB)), cpuSeconds: median(idleRuns.map(\.cpuSeconds)))

        try resumeCase(
            resource: resource, server: server.baseURL, directory: directory, seed: seed,
            expectedSHA256: expectedSHA256, idle: idle)
        try cancelProbe(resource: resource, server: server.baseURL, directory: directory, seed: seed)
        try throughputCase(resource: resource, server: server.baseURL, directory: directory, idle: idle)
    }

    // MARK: Cancellation without NetKit

    /// A raw URLSession `dataTask` of the whole file, cancelled at the resume case's client offsets: how far
    /// FoundationNetworking itself reads on after `cancel()`, to tell its share of the overshoot from NetKit's.
    func cancelProbe(resource: LoopbackRangedResource, server: URL, directory: URL, seed: UInt64) throws {
        resource.cuts = []
        let offsets = CutPlan(fileBytes: fileBytes, seed: seed).clientOffsets
        let before = resource.requests.count
        let result = try runChild(
            .rawCancel, server: server, destination: directory.appendingPathComponent("probe.bin"),
            extra: [offsets.map(String.init).joined(separator: ",")])
        let seen = Array(Self.settledLog(resource).dropFirst(before))
        let probes = result.probes ?? []
        guard probes.count == seen.count, !probes.isEmpty else {
            print("Cancellation probe: \(probes.count) probes but \(seen.count) requests logged; no figures.")
            print("")
            return
        }
        let afterCancel = zip(probes, seen).map { $1.bodyBytesSent - Int($0.receivedAtCancel) }.sorted()
        let delivered = probes.map { Int($0.receivedTotal - $0.receivedAtCancel) }.sorted()
        let latencies = probes.map(\.cancelToCompleteSeconds).sorted()
        let toEnd = seen.filter { $0.bodyBytesSent == $0.declaredLength }.count
        print(
            "### Cancellation without NetKit: a raw URLSession `dataTask` cancelled at the same \(probes.count) offsets"
        )
        print(
            "One child; each task downloads the whole file and calls `cancel()` (from another queue, as NetKit's transport does) once its delegate holds the offset."
        )
        print("")
        print("| figure | median | max |")
        print("| --- | --- | --- |")
        print(
            "| sent by the server past the cancel point | \(Self.mib(afterCancel[afterCancel.count / 2])) | \(Self.mib(afterCancel.last ?? 0)) (\(toEnd) of \(probes.count) to the end of the file) |"
        )
        print(
            "| delivered to the delegate after `cancel()` | \(Self.mib(delivered[delivered.count / 2])) | \(Self.mib(delivered.last ?? 0)) |"
        )
        print(
            "| `cancel()` → `didCompleteWithError` | \(format(latencies[latencies.count / 2] * 1000, 1)) ms | \(format((latencies.last ?? 0) * 1000, 1)) ms |"
        )
        print("")
        fflush(nil)
    }

    /// The idle child's medians.
    struct Idle {
        let peakKiB: Double
        let cpuSeconds: Double
    }

    // MARK: Resume

    /// Where the 20 cuts go: one offset in each twentieth of the file (in its middle 80 %, so no two are close),
    /// each made by the server or by the client as a seeded shuffle says.
    struct CutPlan {
        struct Cut {
            let offset: Int
            let byServer: Bool
        }
        let cuts: [Cut]

        init(fileBytes: Int, seed: UInt64) {
            var generator = SplitMix64(state: seed)
            let count = DownloadBenchmark.serverCuts + DownloadBenchmark.clientCancellations
            let stratum = fileBytes / count
            let offsets = (0..<count).map { index in
                index * stratum + stratum / 10 + Int.random(in: 0..<max(1, stratum * 8 / 10), using: &generator)
            }
            var kinds =
                Array(repeating: true, count: DownloadBenchmark.serverCuts)
                + Array(repeating: false, count: DownloadBenchmark.clientCancellations)
            kinds.shuffle(using: &generator)
            cuts = zip(offsets, kinds).map { Cut(offset: $0, byServer: $1) }
        }

        /// The resource's `cuts`, one per response in order: the n-th response runs from the (n−1)-th cut to the
        /// n-th, and breaks off there if the server makes that cut. A client cancellation leaves its response whole
        /// (a value at its length cuts nothing), and lands wherever the client stops: the next server cut is
        /// counted from the planned offset, so it lands late by as many bytes as the client wrote past it.
        func serverCutValues(fileBytes: Int) -> [Int] {
            cuts.indices.map { index in
                let start = index == 0 ? 0 : cuts[index - 1].offset
                return cuts[index].byServer ? cuts[index].offset - start : fileBytes
            }
        }

        var clientOffsets: [Int] { cuts.filter { !$0.byServer }.map(\.offset) }
    }

    /// One request of the resume case, from the server's log and the child's.
    struct Row {
        let seen: LoopbackRangedResource.Seen
        /// Where the body began: the range's first byte for a 206, 0 for a 200.
        let start: Int
        /// Bytes in the partial file when the client sent the request (`nil` when the logs do not match).
        let onDisk: Int?
        /// The bytes of this response the client wrote: from `start` to what was on disk when it asked again.
        let written: Int?
        let cutByServer: Bool
        let isLast: Bool
        let planned: Int?

        /// Bytes sent for offsets already on disk (none for a response without a body, such as a 416).
        var overlap: Int? { onDisk.map { min(seen.bodyBytesSent, max(0, $0 - start)) } }
        var lost: Int? { written.map { seen.bodyBytesSent - $0 } }
        var how: String {
            if cutByServer { return "server reset" }
            if isLast { return seen.status == 416 ? "416" : "completes" }
            if let written, written < seen.declaredLength { return "client cancel" }
            return "?"
        }
        /// A cancelled response the server still sent to its end: the client read on after the cancel.
        var drainedAfterCancel: Bool { how == "client cancel" && seen.bodyBytesSent == seen.declaredLength }
    }

    func resumeCase(
        resource: LoopbackRangedResource, server: URL, directory: URL, seed: UInt64, expectedSHA256: String, idle: Idle
    ) throws {
        let plan = CutPlan(fileBytes: fileBytes, seed: seed)
        let cutValues = plan.serverCutValues(fileBytes: fileBytes)
        resource.cuts = cutValues
        let destination = directory.appendingPathComponent("resume.bin")
        let result = try runChild(
            .resume, server: server, destination: destination,
            extra: [
                expectedSHA256, plan.clientOffsets.map(String.init).joined(separator: ","), String(Self.retries),
            ])
        let log = Self.settledLog(resource)
        resource.cuts = []
        let fileOK = result.outcome == "complete" && (try? Self.sha256(of: destination)) == expectedSHA256
        removeDownload(at: destination)

        // Match the server's log with what the child saw when it sent each request.
        let asked = result.asked ?? []
        let logsMatch = asked.count == log.count && zip(asked, log).allSatisfy { $0.range == $1.range }
        var rows: [Row] = []
        for (index, seen) in log.enumerated() {
            let start = seen.status == 206 ? Self.rangeStart(seen.range) ?? 0 : 0
            let onDisk = logsMatch ? Int(asked[index].bytesOnDisk) : nil
            let nextOnDisk: Int? =
                logsMatch
                ? (index + 1 < asked.count
                    ? Int(asked[index + 1].bytesOnDisk) : (result.outcome == "complete" ? fileBytes : nil)) : nil
            let written = seen.status == 416 ? 0 : nextOnDisk.map { $0 - start }
            let cutByServer = index < cutValues.count && cutValues[index] < seen.declaredLength
            rows.append(
                Row(
                    seen: seen, start: start, onDisk: onDisk, written: written, cutByServer: cutByServer,
                    isLast: index == log.count - 1, planned: index < plan.cuts.count ? plan.cuts[index].offset : nil))
        }

        let sent = log.reduce(0) { $0 + $1.bodyBytesSent }
        let resumes = max(0, log.count - 1)
        let ranges = log.filter { $0.range != nil }.count
        let partials = log.filter { $0.status == 206 }.count
        let overlap = logsMatch ? rows.reduce(0) { $0 + ($1.overlap ?? 0) } : nil
        let resent = sent - fileBytes
        // What crossed the network twice: bytes the client's TCP acknowledged, less the file. The rest of `resent` sat
        // in the server's kernel when the client went away and was discarded by its reset, never sent.
        let resentOnTheWire = log.reduce(0) { $0 + $1.bodyBytesDelivered } - fileBytes
        let perResumeOnTheWire = resumes > 0 ? Double(resentOnTheWire) / Double(resumes) : 0
        let overshoot = overlap.map { resent - $0 }
        let lostByServerCuts = rows.filter(\.cutByServer).compactMap(\.lost)
        let lostByCancels = rows.filter { $0.how == "client cancel" }.compactMap(\.lost)
        // Bytes of one cut sent twice: those lost at it, and those of the next request that overlap the disk.
        var resentPerCut: [Int] = []
        if logsMatch {
            for index in rows.indices.dropLast() {
                resentPerCut.append((rows[index].lost ?? 0) + (rows[index + 1].overlap ?? 0))
            }
        }
        let perResume = resumes > 0 ? Double(resent) / Double(resumes) : 0
        let above = (result.peakKiB - idle.peakKiB) / 1024
        let cancels = result.cancels ?? []
        let cancelErrors = Set(cancels.map(\.error)).sorted().joined(separator: ", ")
        let serverCutsMade = rows.filter(\.cutByServer).count
        let drained = rows.filter(\.drainedAfterCancel).count
        let latencies = cancels.map(\.latencySeconds).sorted()

        print(
            "### Resume: \(mebibytes) MiB cut \(plan.cuts.count) times at random offsets (\(Self.serverCuts) server resets, \(Self.clientCancellations) client cancellations), resumed each time"
        )
        print(
            "One child process downloads with `NetworkManager.download(_:to:options:progress:)`, `DownloadOptions(expectedSHA256:)`, and a request whose `retryPolicy` is `RetryPolicy(maxRetryCount: \(Self.retries), delay: 0.01)`. Server resets are the resource's `cuts` (the connection closes after that many body bytes of a response) and are resumed within a call; a client cancellation cancels the download task from its `progress` callback once the file holds the planned offset, and the child calls `download` again with the same destination, as a relaunched app would. Overlap: bytes the server sent for offsets the client already had on disk when it asked. In-flight overshoot: body bytes the server's sockets took that the client never wrote (sent in all − file size − overlap)."
        )
        print("")
        print("| figure | measured | target |")
        print("| --- | --- | --- |")
        print(
            "| outcome | \(result.outcome); SHA-256 \(result.sha256OK && fileOK ? "right (NetKit's check and the parent's)" : "**WRONG** (NetKit: \(result.sha256OK), parent: \(fileOK))") | right SHA-256 |"
        )
        print(
            "| cuts made | \(serverCutsMade) server resets, \(cancels.count) client cancellations (thrown: \(cancelErrors.isEmpty ? "–" : cancelErrors)) | 10 + 10 |"
        )
        print(
            "| cancel → `download` threw | median \(format((latencies.isEmpty ? 0 : latencies[latencies.count / 2]) * 1000, 1)) ms, max \(format((latencies.last ?? 0) * 1000, 1)) ms | – |"
        )
        print(
            "| calls to `download` | \(result.calls) (\(result.interrupted ?? 0) ended in `DownloadError.interrupted`) | 1 + one per cancellation |"
        )
        print(
            "| requests (server log) | \(log.count): \(ranges) with `Range` (\(partials) answered 206), \(log.count - ranges) whole; the child sent \(asked.count) | 1 + 20 |"
        )
        print(
            "| overlap | \(overlap.map { "\($0.formatted()) B" } ?? "unknown (the logs do not match)") | 0 |"
        )
        print(
            "| in-flight overshoot | \(overshoot.map { "\(Self.mib($0)) in all, \(Self.kib(Double($0) / Double(max(1, resumes)))) per resume" } ?? "–"); at server resets \(Self.mib(lostByServerCuts.reduce(0, +))) (max \(Self.kib(Double(lostByServerCuts.max() ?? 0)))), at client cancellations \(Self.mib(lostByCancels.reduce(0, +))) (max \(Self.kib(Double(lostByCancels.max() ?? 0)))) | – |"
        )
        print(
            "| re-sent (body bytes sent − file size) | \(Self.mib(resent)) over \(resumes) resumes: \(Self.kib(perResume)) per resume on average, \(Self.kib(Double(resentPerCut.max() ?? 0))) at most at one | ≤ 1 MiB per resume: \(perResume <= 1_048_576 ? "met" : "**MISSED**") |"
        )
        print(
            "| of those, reached the client (acknowledged by its TCP − file size) | \(Self.mib(resentOnTheWire)): \(Self.kib(perResumeOnTheWire)) per resume on average; the other \(Self.mib(resent - resentOnTheWire)) were still in the server's kernel when the client's reset discarded them | – |"
        )
        print(
            "| cancelled responses the server still sent to their end | \(drained) of \(lostByCancels.count) | – |"
        )
        print(
            "| peak RSS (VmHWM) | \(format(result.peakKiB / 1024, 1)) MiB, \(format(above, 1)) MiB above the idle child (\(format(idle.peakKiB / 1024, 1)) MiB) | growth < 32 MiB: \(above < 32 ? "met" : "**MISSED**") |"
        )
        print(
            "| CPU (user + system) | \(format(result.cpuSeconds, 2)) s (\(format(result.cpuSeconds - idle.cpuSeconds, 2)) s above idle) | – |"
        )
        print(
            "| peak spill (deleted temporary files held, sampled every 20 ms) | \(Self.mib(Int(result.peakSpillBytes))) | – |"
        )
        print(
            "| wall time | \(format(result.seconds, 2)) s (\(format(Double(fileBytes) / result.seconds / 1e6, 0)) MB/s of file), the final SHA-256 pass over the file included | – |"
        )
        print("")
        print(
            "Each request (offsets in MiB, bytes exact). \"sent, never written\": what the server's socket took of the response beyond what the client wrote before its next request; at a server reset it is what was in flight, at a client cancellation everything the client read on after cancelling."
        )
        print("")
        print(
            "| # | ended by | planned cut | asked | status | on disk when asked | body bytes sent | of those, reached the client | written | sent, never written | overlap |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for (index, row) in rows.enumerated() {
            let planned = row.planned.map { Self.offset($0) } ?? "–"
            print(
                "| \(index + 1) | \(row.how) | \(planned) | \(row.seen.range ?? "whole") | \(row.seen.status) | \(row.onDisk.map { Self.offset($0) } ?? "?") | \(row.seen.bodyBytesSent.formatted()) | \(row.seen.bodyBytesDelivered.formatted()) | \(row.written.map { $0.formatted() } ?? "?") | \(row.lost.map { $0.formatted() } ?? "?") | \(row.overlap.map { $0.formatted() } ?? "?") |"
            )
        }
        if !logsMatch {
            print("")
            print(
                "The child's list of requests (\(asked.map { $0.range ?? "whole" }.joined(separator: ", "))) does not match the server's log: per-request disk figures are unknown."
            )
        }
        print("")
        fflush(nil)
    }

    // MARK: Throughput

    func throughputCase(resource: LoopbackRangedResource, server: URL, directory: URL, idle: Idle) throws {
        resource.cuts = []
        let contenders: [DownloadChild.Mode] = [.netkit, .raw, .rawSynced]
        var results: [DownloadChild.Mode: [DownloadChild.Result]] = [:]
        var failures: [DownloadChild.Mode: [String]] = [:]
        for round in 0..<rounds {
            // Interleaved, and the order turns each round so no contender always goes first.
            let shift = round % contenders.count
            for mode in contenders[shift...] + contenders[..<shift] {
                let destination = directory.appendingPathComponent("throughput-\(mode.rawValue).bin")
                let before = resource.requests.count
                let result = try runChild(mode, server: server, destination: destination)
                let seen = Self.settledLog(resource).dropFirst(before)
                let ok =
                    result.outcome == "complete" && result.byteCount == Int64(fileBytes) && seen.count == 1
                    && seen.first?.status == 200 && seen.first?.bodyBytesSent == fileBytes
                if ok {
                    results[mode, default: []].append(result)
                } else {
                    let sent = seen.map { "\($0.status), \($0.bodyBytesSent.formatted()) B sent" }
                    failures[mode, default: []].append(
                        "\(result.outcome) (\(result.byteCount.formatted()) B in place; server: \(sent.joined(separator: "; ")))"
                    )
                }
                removeDownload(at: destination)
            }
        }

        print(
            "### Throughput: \(mebibytes) MiB, no cuts, \(rounds) interleaved rounds (order turned each round), medians"
        )
        print(
            "Each download runs in a fresh child process, timed from the request to the file in place: so each one's CPU time and peak RSS are its own, and none inherits a warm connection pool, heap or page cache of written files from the one before. Files are deleted between downloads. NetKit writes a partial file, fsyncs it and renames it into place (default options: no digest to check, none announced; the request's default retry policy, no retries, so a transfer that fails fails its round); URLSession's `downloadTask` writes a temporary file, which the completion handler moves into place; the third row adds the fsync of the file and its directory NetKit does."
        )
        print("")
        print(
            "| client | median time | throughput (min–max) | CPU (above idle) | peak RSS (above idle) | peak spill | rounds verified (file and server log) |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- |")
        var medians: [DownloadChild.Mode: Double] = [:]
        for mode in contenders {
            let runs = results[mode, default: []]
            let failed = failures[mode, default: []].count
            let verified = "\(runs.count) of \(runs.count + failed)\(failed > 0 ? " (**\(failed) failed**)" : "")"
            guard !runs.isEmpty else {
                print("| \(mode.title) | – | – | – | – | – | \(verified) |")
                continue
            }
            let seconds = median(runs.map(\.seconds))
            medians[mode] = seconds
            let rates = runs.map { Double(fileBytes) / $0.seconds / 1e6 }
            let cpu = median(runs.map(\.cpuSeconds))
            let peak = median(runs.map(\.peakKiB))
            let spill = median(runs.map { Double($0.peakSpillBytes) })
            print(
                "| \(mode.title) | \(format(seconds, 2)) s | \(format(Double(fileBytes) / seconds / 1e6, 0)) MB/s (\(format(rates.min() ?? 0, 0))–\(format(rates.max() ?? 0, 0))) | \(format(cpu, 2)) s (\(format(cpu - idle.cpuSeconds, 2)) s) | \(format(peak / 1024, 1)) MiB (\(format((peak - idle.peakKiB) / 1024, 1)) MiB) | \(Self.mib(Int(spill))) | \(verified) |"
            )
        }
        let netkit = medians[.netkit] ?? .infinity
        let ratio = (medians[.raw] ?? 0) / netkit
        let syncedRatio = (medians[.rawSynced] ?? 0) / netkit
        print("")
        for mode in contenders {
            for failure in failures[mode, default: []] {
                print("- \(mode.title) failed: \(failure)")
            }
        }
        if !failures.isEmpty {
            print("")
            print("Medians are of the rounds that completed; a failed round counts in no figure.")
            print("")
        }
        if medians[.netkit] == nil {
            print("NetKit / raw URLSession `downloadTask`: – (no NetKit round completed; target ≥ 0.90): **MISSED**")
        } else {
            print(
                "NetKit / raw URLSession `downloadTask` (throughput, medians): \(format(ratio, 2)) (target ≥ 0.90): \(ratio >= 0.9 ? "met" : "**MISSED**")"
            )
            print("NetKit / raw URLSession `downloadTask` + fsync: \(format(syncedRatio, 2))")
        }
        print("")
        fflush(nil)
    }

    // MARK: Helpers

    /// Starts `netkit-bench __download-child <mode> <server> <destination> …` and reads its one result line.
    func runChild(_ mode: DownloadChild.Mode, server: URL, destination: URL, extra: [String] = []) throws
        -> DownloadChild.Result
    {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [DownloadChild.command, mode.rawValue, server.absoluteString, destination.path] + extra
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix(DownloadChild.resultPrefix) })
        else {
            throw UploadChild.Failure(
                description:
                    "the \(mode.rawValue) download child exited with \(process.terminationStatus): \(text.suffix(2000))"
            )
        }
        return try JSONDecoder().decode(
            DownloadChild.Result.self, from: Data(line.dropFirst(DownloadChild.resultPrefix.count).utf8))
    }

    /// Removes a download's file, its partial file and its state file.
    func removeDownload(at destination: URL) {
        let partial = DownloadOptions.partialFile(for: destination)
        for url in [destination, partial, DownloadOptions.stateFile(for: partial)] {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The resource's log once it has stopped changing: a server thread notices a client's close only when its
    /// next write fails, and then lowers what it logged as sent.
    static func settledLog(_ resource: LoopbackRangedResource) -> [LoopbackRangedResource.Seen] {
        var last = resource.requests
        var stable = 0
        for _ in 0..<100 {
            usleep(50_000)
            let now = resource.requests
            stable = now == last ? stable + 1 : 0
            last = now
            if stable == 4 { break }
        }
        return last
    }

    /// The first byte of `bytes=<first>-…`.
    static func rangeStart(_ range: String?) -> Int? {
        guard let range, range.hasPrefix("bytes="), let dash = range.firstIndex(of: "-") else { return nil }
        return Int(range[range.index(range.startIndex, offsetBy: 6)..<dash])
    }

    /// The SHA-256 of the file at `url`, read a mebibyte at a time.
    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            hasher.update(data)
        }
        return SHA256.hex(hasher.finalize())
    }

    static func mib(_ bytes: Int) -> String { "\(format(Double(bytes) / 1_048_576, 2)) MiB" }
    /// KiB below a mebibyte, MiB from there.
    static func kib(_ bytes: Double) -> String {
        bytes < 1_048_576 ? "\(format(bytes / 1024, 1)) KiB" : "\(format(bytes / 1_048_576, 2)) MiB"
    }
    static func offset(_ bytes: Int) -> String { format(Double(bytes) / 1_048_576, 3) }
}

/// SplitMix64: a small seeded generator, so a seed gives the same cuts on every machine.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// The child side: one download (or the idle reference), then its figures on stdout.
enum DownloadChild {
    static let command = "__download-child"
    static let resultPrefix = "DOWNLOAD-RESULT "

    enum Mode: String, Codable {
        case idle, resume, netkit, raw
        case rawSynced = "raw-fsync"
        case rawCancel = "raw-cancel"

        var title: String {
            switch self {
            case .idle: "idle process (one 4 KiB download)"
            case .resume: "NetKit `download`, cut and resumed"
            case .netkit: "NetKit `download`"
            case .raw: "URLSession `downloadTask`, file moved into place"
            case .rawSynced: "same, then fsync of the file and its directory"
            case .rawCancel: "URLSession `dataTask`, cancelled"
            }
        }
    }

    /// A request the child sent: its `Range` and the partial file's length at that moment.
    struct Asked: Codable, Sendable {
        let range: String?
        let bytesOnDisk: Int64
    }

    /// A cancellation the child made: the planned offset, the partial file's length after the call, what it threw
    /// and how long after the cancel.
    struct Cancel: Codable {
        let offset: Int64
        let bytesOnDisk: Int64
        let error: String
        let latencySeconds: Double
    }

    struct Result: Codable {
        var outcome: String
        var seconds: Double
        var cpuSeconds = 0.0
        var peakKiB = 0.0
        var peakSpillBytes: Int64 = 0
        var byteCount: Int64
        var calls = 1
        var sha256OK = false
        var interrupted: Int?
        var asked: [Asked]?
        var cancels: [Cancel]?
        var probes: [Probe]?
    }

    /// One cancelled raw `dataTask`: what its delegate had when `cancel()` was called, what it had in the end, and
    /// how long the task took to complete after `cancel()`.
    struct Probe: Codable {
        let receivedAtCancel: Int64
        let receivedTotal: Int64
        let cancelToCompleteSeconds: Double
    }

    /// `GET /file`, with `retries` retries in a row allowed.
    struct FileRequest: NetworkRequest {
        typealias Response = Data
        let retries: Int
        var path: String { "/file" }
        var method: HTTPMethod { .get }
        var retryPolicy: RetryPolicy {
            retries > 0 ? RetryPolicy(maxRetryCount: retries, delay: 0.01) : RetryPolicy()
        }
    }

    /// Notes each request as it goes out, with what the partial file holds then.
    final class AskRecorder: Plugin {
        let partialFile: URL
        let asked = Lock<[Asked]>([])

        init(partialFile: URL) {
            self.partialFile = partialFile
        }

        func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
            let entry = Asked(range: request.value(forHeader: "Range"), bytesOnDisk: fileLength(partialFile))
            asked.withLock { $0.append(entry) }
        }
    }

    /// The offsets at which the child cancels its download, first first; at most one per call.
    final class CancelPlan: Sendable {
        private struct State {
            var pending: [Int64]
            var firedAt: Int64?
            var firedWhen: ContinuousClock.Instant?
        }
        private let state: Lock<State>

        init(_ offsets: [Int64]) {
            state = Lock(State(pending: offsets.sorted()))
        }

        func beginCall() {
            state.withLock {
                $0.firedAt = nil
                $0.firedWhen = nil
            }
        }

        /// Whether the download should be cancelled now that the file holds `completedBytes`.
        func shouldCancel(at completedBytes: Int64) -> Bool {
            state.withLock { state in
                guard state.firedAt == nil, let next = state.pending.first, completedBytes >= next else {
                    return false
                }
                state.pending.removeFirst()
                state.firedAt = next
                state.firedWhen = .now
                return true
            }
        }

        /// The offset this call was cancelled at, if it was.
        var firedAt: Int64? { state.withLock { $0.firedAt } }
        /// When this call was cancelled, if it was.
        var firedWhen: ContinuousClock.Instant? { state.withLock { $0.firedWhen } }
    }

    /// `__download-child <mode> <server URL> <destination> [<sha256> <cancel offsets> <retries>]`
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 3, let mode = Mode(rawValue: arguments[0]), let server = URL(string: arguments[1])
        else {
            throw UploadChild.Failure(
                description:
                    "usage: netkit-bench \(command) <idle|resume|netkit|raw|raw-fsync> <server URL> <destination> [<sha256> <offsets> <retries>]"
            )
        }
        let destination = URL(fileURLWithPath: arguments[2])
        let sampler = ResourceSampler()
        var result: Result
        let began = ContinuousClock.now
        do {
            result = try await run(mode, server: server, destination: destination, arguments: arguments)
        } catch {
            // A failed download is a result too: the parent reports it.
            let reason = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
            result = Result(
                outcome: "failed: \(reason)", seconds: Measurement.seconds(began.duration(to: .now)),
                byteCount: fileLength(destination))
        }
        result.cpuSeconds = processCPUSeconds()
        result.peakKiB = (peakResidentMiB() ?? 0) * 1024
        result.peakSpillBytes = sampler.peakSpillBytes
        sampler.stop()
        print(resultPrefix + String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }

    /// Runs one child's download (or downloads) and returns its figures.
    static func run(_ mode: Mode, server: URL, destination: URL, arguments: [String]) async throws -> Result {
        switch mode {
        case .idle, .netkit:
            return try await plain(server: server, destination: destination)
        case .resume:
            guard arguments.count == 6, let retries = Int(arguments[5]) else {
                throw UploadChild.Failure(description: "resume: <sha256> <offsets> <retries> expected")
            }
            let offsets = arguments[4].split(separator: ",").compactMap { Int64($0) }
            return try await resume(
                server: server, destination: destination, sha256: arguments[3], offsets: offsets, retries: retries)
        case .raw, .rawSynced:
            return try await raw(server: server, destination: destination, synced: mode == .rawSynced)
        case .rawCancel:
            let offsets = arguments.count > 3 ? arguments[3].split(separator: ",").compactMap { Int64($0) } : []
            let delegate = CancellingDelegate()
            let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
            var probes: [Probe] = []
            for offset in offsets {
                probes.append(await delegate.run(session.dataTask(with: server.appending(path: "file")), at: offset))
            }
            session.finishTasksAndInvalidate()
            return Result(outcome: "complete", seconds: 0, byteCount: 0, probes: probes)
        }
    }

    /// The manager of a NetKit child: over URLSession, or over AsyncHTTPClient when the bench is built with the trait
    /// (`--traits AsyncHTTPClient --scratch-path .build-ahc`) and run with `NETKIT_BENCH_DOWNLOAD_TRANSPORT=asynchttpclient`.
    static func makeManager(server: URL) -> NetworkManager {
        #if AsyncHTTPClient
        if DownloadBenchmark.transportName == DownloadBenchmark.asyncHTTPClientName {
            return NetworkManager(baseURL: server, transport: AsyncHTTPClientTransport())
        }
        #endif
        return NetworkManager(baseURL: server)
    }

    /// One `download` with default options.
    static func plain(server: URL, destination: URL) async throws -> Result {
        let manager = makeManager(server: server)
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await manager.download(FileRequest(retries: 0), to: destination)
        let seconds = Measurement.seconds(start.duration(to: clock.now))
        return Result(outcome: "complete", seconds: seconds, byteCount: fileLength(destination), calls: 1)
    }

    /// The download cut by the server and cancelled by the child at `offsets`, called again until it completes.
    static func resume(server: URL, destination: URL, sha256: String, offsets: [Int64], retries: Int) async throws
        -> Result
    {
        let partial = DownloadOptions.partialFile(for: destination)
        let recorder = AskRecorder(partialFile: partial)
        let manager = makeManager(server: server)
        manager.plugins = [recorder]
        let plan = CancelPlan(offsets)
        let options = DownloadOptions(expectedSHA256: sha256)
        let request = FileRequest(retries: retries)
        let clock = ContinuousClock()
        let start = clock.now
        var outcome = "gave up after 100 calls"
        var calls = 0
        var interrupted = 0
        var cancels: [Cancel] = []
        var file: DownloadedFile?
        while calls < 100 {
            calls += 1
            plan.beginCall()
            let task = Task {
                try await manager.download(
                    request, to: destination, options: options,
                    progress: { progress in
                        // Cancels this very task, as an app's cancel button would.
                        if plan.shouldCancel(at: progress.completedBytes) { withUnsafeCurrentTask { $0?.cancel() } }
                    })
            }
            do {
                file = try await task.value
                outcome = "complete"
                break
            } catch {
                if let offset = plan.firedAt {
                    let latency = plan.firedWhen.map { Measurement.seconds($0.duration(to: clock.now)) } ?? 0
                    cancels.append(
                        Cancel(
                            offset: offset, bytesOnDisk: fileLength(partial), error: "\(type(of: error))",
                            latencySeconds: latency))
                } else if case DownloadError.interrupted = error {
                    interrupted += 1
                } else {
                    outcome = "failed in call \(calls): \(error)"
                    break
                }
            }
        }
        let seconds = Measurement.seconds(start.duration(to: clock.now))
        let sha256OK =
            file.map { $0.sha256?.lowercased() == sha256.lowercased() && $0.byteCount == fileLength(destination) }
            ?? false
        return Result(
            outcome: outcome, seconds: seconds, byteCount: fileLength(destination), calls: calls, sha256OK: sha256OK,
            interrupted: interrupted, asked: recorder.asked.withLock { $0 }, cancels: cancels)
    }

    /// A plain URLSession `downloadTask`, its file moved to `destination` (and fsynced, when `synced`).
    static func raw(server: URL, destination: URL, synced: Bool) async throws -> Result {
        let session = URLSession(configuration: .default)
        let request = URLRequest(url: server.appending(path: "file"))
        let clock = ContinuousClock()
        let start = clock.now
        let status: Int = try await withCheckedThrowingContinuation { continuation in
            let task = session.downloadTask(with: request) { location, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let location, let response = response as? HTTPURLResponse else {
                    return continuation.resume(throwing: UploadChild.Failure(description: "no file"))
                }
                do {
                    try? FileManager.default.removeItem(at: destination)
                    try FileManager.default.moveItem(at: location, to: destination)
                    if synced {
                        for path in [destination.path, destination.deletingLastPathComponent().path] {
                            let descriptor = open(path, O_RDONLY)
                            if descriptor >= 0 {
                                _ = fsync(descriptor)
                                _ = close(descriptor)
                            }
                        }
                    }
                    continuation.resume(returning: response.statusCode)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            task.resume()
        }
        let seconds = Measurement.seconds(start.duration(to: clock.now))
        session.finishTasksAndInvalidate()
        return Result(
            outcome: status == 200 ? "complete" : "status \(status)", seconds: seconds,
            byteCount: fileLength(destination))
    }
}

/// A session delegate that cancels its task once it has received a given number of body bytes, and notes what came
/// after. `@unchecked Sendable`: `NSObject` is not `Sendable`; the state is only touched under its lock.
final class CancellingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var cancelAt: Int64 = 0
        var received: Int64 = 0
        var receivedAtCancel: Int64?
        var cancelledWhen: ContinuousClock.Instant?
        var waiter: CheckedContinuation<DownloadChild.Probe, Never>?
    }
    private let state = Lock(State())

    /// Starts `task`, cancels it once `offset` bytes have come, and waits for its end.
    func run(_ task: URLSessionTask, at offset: Int64) async -> DownloadChild.Probe {
        await withCheckedContinuation { continuation in
            state.withLock { $0 = State(cancelAt: offset, waiter: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = state.withLock { state in
            state.received += Int64(data.count)
            guard state.receivedAtCancel == nil, state.received >= state.cancelAt else { return false }
            state.receivedAtCancel = state.received
            state.cancelledWhen = .now
            return true
        }
        // Not synchronously: on Linux the callbacks run on the work queue that cancel() waits for.
        if cancel { DispatchQueue.global().async { dataTask.cancel() } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (waiter, probe) = state.withLock { state in
            defer { state.waiter = nil }
            let latency = state.cancelledWhen.map { Measurement.seconds($0.duration(to: .now)) } ?? 0
            return (
                state.waiter,
                DownloadChild.Probe(
                    receivedAtCancel: state.receivedAtCancel ?? state.received, receivedTotal: state.received,
                    cancelToCompleteSeconds: latency)
            )
        }
        waiter?.resume(returning: probe)
    }
}

/// The length of the file at `url`, 0 if there is none.
private func fileLength(_ url: URL) -> Int64 {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return 0 }
    return Int64(info.st_size)
}
