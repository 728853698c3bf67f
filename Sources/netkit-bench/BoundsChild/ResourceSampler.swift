import Foundation
// Synchronization's Mutex, not NetKit's Lock: this folder is also compiled by Benchmarks/Transports, a package of
// its own that cannot reach a `package` module.
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Samples, every 20 ms on a thread of its own, what a benchmark child holds outside its heap's high-water mark:
/// the disk its deleted-but-open files occupy (a transport's spill file is unlinked as soon as it is made, so no
/// directory listing shows it; `/proc/self/fd` does), and its resident memory now. Linux only; elsewhere both
/// read 0.
final class ResourceSampler: Sendable {
    private struct State {
        var spillBytes: Int64 = 0
        var peakSpillBytes: Int64 = 0
        var residentBytes: Int64 = 0
        var stopped = false
    }

    private let state = Mutex(State())
    static let interval = Duration.milliseconds(20)

    init() {
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                let spill = Self.deletedFileBytes()
                let resident = Self.residentBytes()
                state.withLock {
                    $0.spillBytes = spill
                    $0.peakSpillBytes = max($0.peakSpillBytes, spill)
                    $0.residentBytes = resident
                }
                Thread.sleep(forTimeInterval: BoundsChild.seconds(Self.interval))
            }
        }
        thread.start()
    }

    /// The most disk the process's deleted open files held at any sample.
    var peakSpillBytes: Int64 { state.withLock { $0.peakSpillBytes } }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Waits until neither the spill nor resident memory (±1 MiB) has changed for `window`, at most `limit`: how a
    /// benchmark tells that a transport has taken in all it will while its consumer does not read. Returns how long
    /// it waited.
    func waitUntilQuiet(window: Duration = .seconds(1), limit: Duration = .seconds(300)) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        var last = state.withLock { ($0.spillBytes, $0.residentBytes) }
        var quietSince = start
        while clock.now - start < limit {
            try await Task.sleep(for: Self.interval * 5)
            let now = state.withLock { ($0.spillBytes, $0.residentBytes) }
            if now.0 != last.0 || abs(now.1 - last.1) > 1 << 20 {
                last = now
                quietSince = clock.now
            } else if clock.now - quietSince >= window {
                break
            }
        }
        return clock.now - start
    }

    /// Bytes allocated on disk to the regular files this process holds open after they were unlinked.
    static func deletedFileBytes() -> Int64 {
        #if os(Linux)
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return 0 }
        var total: Int64 = 0
        for descriptor in descriptors {
            let path = "/proc/self/fd/\(descriptor)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
                target.hasPrefix("/"), target.hasSuffix(" (deleted)")
            else { continue }
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { total += Int64(info.st_blocks) * 512 }
        }
        return total
        #else
        return 0
        #endif
    }

    /// Resident memory now (`VmRSS`), in bytes.
    static func residentBytes() -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int64(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1])
        else { return 0 }
        return kilobytes * 1024
    }
}
