import Foundation
import LoopbackServer
import Testing
import NetCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk cache killed while it writes: a writer process (`netkit-cache-writer`) stores responses without pause
/// and is killed with SIGKILL at a random point, 200 times over one directory. After each kill a new opening must find
/// every entry the writer had reported stored (or a later version of it), every file whole, no damaged entry, and no
/// file left half-written.
///
/// The kill points fall in proportion to where the writer spends its time; in a debug build that is mostly encoding,
/// and a few kills in 200 land inside a file's write (the `.partial` files the opening removes). The states those
/// leave are also made by hand in ``DiskCacheStoreTests``: a half-written file, a truncated and an altered entry.
@Suite("Response cache on disk: a writer killed at random points")
struct DiskCacheCrashTests {
    static let rounds = 200
    static let paths = (0..<24).map { "/\($0)" }

    @Test("200 kills: every entry reported stored is found whole, at that version or a later one")
    func killedWriter() throws {
        let writer = try #require(Self.writerExecutable(), "netkit-cache-writer is built beside the test bundle")
        let directory = FileManager.default.temporaryDirectory.appending(path: "netkit-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SystemRandomNumberGenerator()
        /// The last version the writer reported for each path, over every round.
        var reported: [String: Int] = [:]

        for round in 1...Self.rounds {
            let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
            let output = try HarnessProcess.makePipe()
            defer { close(output.read) }
            let process = try ChildProcess(
                executable: writer.path, arguments: [directory.path, String(round), String(seed)],
                standardOutput: output.write)
            // This process's copy of the pipe's writing end would keep the output open after the kill.
            close(output.write)
            // Wait for a random number of stores and a random time more (not a wait for a signal: the kill point is
            // what is random), then kill: the kill lands wherever the writer then is, encoding, writing, renaming.
            let wanted = Int.random(in: 1...6, using: &generator)
            var lines = LineReader(descriptor: output.read)
            var seen = 0
            while seen < wanted, let line = try lines.next(timeout: .seconds(60)) {
                try Self.record(line, into: &reported)
                seen += 1
            }
            usleep(UInt32.random(in: 0...20_000, using: &generator))
            process.send(SIGKILL)
            let killed = process.waitForExit(timeout: .seconds(60))
            try #require(killed != nil, "round \(round): the writer outlived SIGKILL")
            // The lines written before the kill but not read yet count too.
            while let line = try lines.next(timeout: .seconds(60)) { try Self.record(line, into: &reported) }
            #expect(seen == wanted, "round \(round): the writer ended after \(seen) of \(wanted) stores")

            let failures = try Self.verify(directory, reported: reported, round: round)
            #expect(failures.isEmpty, "round \(round): \(failures.joined(separator: "; "))")
            if !failures.isEmpty { break }
        }
        #expect(reported.count == Self.paths.count, "every path was stored at least once over the rounds")
    }

    /// Opens the cache as a new process would and checks it against what the writer reported.
    static func verify(_ directory: URL, reported: [String: Int], round: Int) throws -> [String] {
        let skipped = LockedLines()
        let cache = try ResponseCache(directory: directory, maximumBytes: 1 << 30, logger: skipped.logger)
        var failures: [String] = []
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        if files.contains(where: { $0.hasSuffix(".partial") }) {
            failures.append("a half-written file survived opening")
        }
        for (path, version) in reported {
            let request = try HTTPRequestHead(method: .get, url: URL(string: "https://crash.test" + path)!)
            let versions = cache.store.entries(forKey: CacheKey(request).digest).map { entry -> Int in
                let found = Int(entry.response.head.headerFields.value(for: "X-Version") ?? "") ?? -1
                let pattern = Data("\(path) \(found);".utf8)
                return entry.response.body.starts(with: pattern) ? found : -2
            }
            guard let newest = versions.max() else {
                failures.append("\(path) (version \(version)) is gone")
                continue
            }
            if newest < version { failures.append("\(path) went back from \(version) to \(newest)") }
            if versions.contains(-2) { failures.append("\(path) has a body that is not its own") }
        }
        if !skipped.all.isEmpty { failures.append("damaged entries: \(skipped.all)") }
        if cache.count != files.filter({ $0.hasSuffix(".entry") }).count {
            failures.append("\(cache.count) entries indexed, \(files.count) files")
        }
        return failures
    }

    static func record(_ line: String, into reported: inout [String: Int]) throws {
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "stored", let version = Int(parts[2]) else {
            throw WriterOutput(line: line)
        }
        reported[String(parts[1]), default: -1] = max(reported[String(parts[1]), default: -1], version)
    }

    struct WriterOutput: Error, CustomStringConvertible {
        let line: String
        var description: String { "the writer printed \"\(line)\"" }
    }

    /// `netkit-cache-writer` beside the test bundle (the same build folder), if it is there.
    static func writerExecutable() -> URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appending(path: "netkit-cache-writer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
