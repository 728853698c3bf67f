import Foundation
import NetKitLock
import Testing
import NetCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache on disk: what a later opening finds, the bound and its order across openings, and what it does with
/// files it did not write whole. Each test has a directory of its own.
@Suite("Response cache on disk: reopening, bound, damage, one process per directory")
struct DiskCacheStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A directory of its own, removed when the test ends.
    final class Scratch: Sendable {
        let url: URL
        init() {
            url = FileManager.default.temporaryDirectory.appending(path: "netkit-disk-cache-\(UUID().uuidString)")
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        var path: String { url.path(percentEncoded: false) }

        func files(_ suffix: String = ".entry") -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(suffix) }
                .sorted()
        }
    }

    static func open(_ scratch: Scratch, maximumBytes: Int = 1 << 20, lines: LockedLines = LockedLines()) throws
        -> ResponseCache
    {
        try ResponseCache(directory: scratch.url, maximumBytes: maximumBytes, logger: lines.logger)
    }

    static func request(_ path: String, _ pairs: [(String, String)] = []) throws -> HTTPRequestHead {
        try HTTPRequestHead(
            method: .get, url: URL(string: "https://api.test" + path)!,
            headerFields: HTTPHeaderFields(pairs.map { (name: $0.0, value: $0.1) }))
    }

    static func response(_ body: String, for request: HTTPRequestHead) throws -> CachedResponse {
        let head = HTTPResponseHead(
            statusCode: 200, headerFields: try HTTPHeaderFields([(name: "Cache-Control", value: "max-age=600")]))
        return try #require(
            CachedResponse(
                head: head, body: Data(body.utf8), request: request, partition: .of(request), requestTime: t0,
                responseTime: t0))
    }

    @Test("what one opening stored, the next opening answers (a new process's transport instance included)")
    func survivesReopening() throws {
        let scratch = Scratch()
        let a = try Self.request("/a", [("Authorization", "Bearer one")])
        do {
            let cache = try Self.open(scratch)
            #expect(cache.store(try Self.response("first", for: a), for: a))
            #expect(cache.count == 1 && scratch.files().count == 1)
        }
        let reopened = try Self.open(scratch)
        #expect(reopened.count == 1)
        let anotherInstance = TransportIdentity(IdentityOnlyTransport())
        let found = reopened.response(for: a, in: .of(a, transport: anotherInstance))
        #expect(found?.body == Data("first".utf8))
        #expect(found?.head.headerFields.value(for: "Cache-Control") == "max-age=600")
        let other = try Self.request("/a", [("Authorization", "Bearer two")])
        #expect(reopened.response(for: other, in: .of(other)) == nil, "another credential is another caller")
    }

    @Test("storing again replaces the file; invalidation and removeAll delete files")
    func replaceAndRemove() throws {
        let scratch = Scratch()
        let cache = try Self.open(scratch)
        let a = try Self.request("/a")
        cache.store(try Self.response("one", for: a), for: a)
        cache.store(try Self.response("two", for: a), for: a)
        #expect(cache.count == 1 && scratch.files().count == 1)
        #expect(cache.response(for: a)?.body == Data("two".utf8))
        cache.invalidate(a)
        #expect(cache.count == 0 && scratch.files().isEmpty)
        cache.store(try Self.response("three", for: a), for: a)
        cache.store(try Self.response("b", for: try Self.request("/b")), for: try Self.request("/b"))
        #expect(scratch.files().count == 2)
        cache.removeAll()
        #expect(cache.count == 0 && cache.currentBytes == 0 && scratch.files().isEmpty)
    }

    @Test("the bound counts file sizes; the least recently used go first, in the order a reopening sees too")
    func boundAndOrderAcrossOpenings() throws {
        let scratch = Scratch()
        let a = try Self.request("/a")
        let b = try Self.request("/b")
        let c = try Self.request("/c")
        let size: Int
        do {
            let probe = try Self.open(scratch)
            probe.store(try Self.response("x", for: a), for: a)
            size = probe.currentBytes
            probe.removeAll()
        }
        #expect(size > 0)
        do {
            let cache = try Self.open(scratch, maximumBytes: size * 2)
            cache.store(try Self.response("x", for: a), for: a)
            cache.store(try Self.response("x", for: b), for: b)
            #expect(cache.count == 2 && cache.currentBytes == size * 2)
            #expect(cache.response(for: a) != nil)  // a is now the most recent: b goes next
        }
        let cache = try Self.open(scratch, maximumBytes: size * 2)
        cache.store(try Self.response("x", for: c), for: c)
        #expect(cache.count == 2 && scratch.files().count == 2)
        #expect(cache.response(for: b) == nil, "b was the least recently used, in the last opening")
        #expect(cache.response(for: a) != nil && cache.response(for: c) != nil)
    }

    @Test("a reopening with a smaller bound removes the least recently used files at once")
    func smallerBound() throws {
        let scratch = Scratch()
        let size: Int
        do {
            let cache = try Self.open(scratch)
            for path in ["/a", "/b", "/c"] {
                let request = try Self.request(path)
                cache.store(try Self.response("x", for: request), for: request)
            }
            size = cache.currentBytes / 3
        }
        let cache = try Self.open(scratch, maximumBytes: size)
        #expect(cache.count == 1 && scratch.files().count == 1)
        #expect(cache.response(for: try Self.request("/c")) != nil, "the newest stays")
    }

    @Test("an entry larger than the bound is not written")
    func tooLarge() throws {
        let scratch = Scratch()
        let cache = try Self.open(scratch, maximumBytes: 200)
        let a = try Self.request("/a")
        #expect(!cache.store(try Self.response(String(repeating: "x", count: 300), for: a), for: a))
        #expect(cache.count == 0 && scratch.files().isEmpty && scratch.files(".partial").isEmpty)
    }

    @Test("a damaged or truncated file is skipped with a log line and removed; the others still answer")
    func damagedFileSkipped() throws {
        let scratch = Scratch()
        let lines = LockedLines()
        let paths = ["/a", "/b", "/c"]
        do {
            let cache = try Self.open(scratch, lines: lines)
            for path in paths {
                let request = try Self.request(path)
                cache.store(try Self.response("body of \(path)", for: request), for: request)
            }
        }
        let names = scratch.files()
        let truncated = scratch.url.appending(path: names[0])
        let whole = try Data(contentsOf: truncated)
        try whole.prefix(whole.count / 2).write(to: truncated)
        let altered = scratch.url.appending(path: names[1])
        var bytes = [UInt8](try Data(contentsOf: altered))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: altered)

        let cache = try Self.open(scratch, lines: lines)
        var answered = 0
        for path in paths where cache.response(for: try Self.request(path)) != nil { answered += 1 }
        #expect(answered == 1)
        #expect(cache.count == 1 && scratch.files().count == 1)
        let skipped = lines.all.filter { $0.contains("skipped the entry") }
        #expect(skipped.count == 2, "\(lines.all)")
        #expect(skipped.allSatisfy { $0.contains("damaged") && $0.contains(scratch.path) })
    }

    @Test("a file that cannot be read is skipped with a log line and left in place, unlike a damaged one")
    func unreadableKept() throws {
        let scratch = Scratch()
        let lines = LockedLines()
        let cache = try Self.open(scratch, lines: lines)
        let a = try Self.request("/a")
        cache.store(try Self.response("mine", for: a), for: a)
        // Indexed as a file, then a directory in its place: opening works, reading does not (EISDIR).
        let name = scratch.files()[0]
        try FileManager.default.removeItem(at: scratch.url.appending(path: name))
        try FileManager.default.createDirectory(
            at: scratch.url.appending(path: name), withIntermediateDirectories: false)
        #expect(cache.response(for: a) == nil)
        #expect(cache.count == 0)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/" + name), "an unreadable file is not removed")
        #expect(lines.all.contains { $0.contains("could not read the entry") && $0.contains("the file stays") })
        #expect(!lines.all.contains { $0.contains("removed it") })
    }

    @Test("files left half-written by a killed process are removed at opening; files not the cache's stay")
    func leftoversRemoved() throws {
        let scratch = Scratch()
        do { _ = try Self.open(scratch) }
        try Data("half".utf8).write(to: scratch.url.appending(path: "\(UUID().uuidString).partial"))
        try Data("mine".utf8).write(to: scratch.url.appending(path: "notes.txt"))
        let cache = try Self.open(scratch)
        #expect(cache.count == 0)
        #expect(scratch.files(".partial").isEmpty)
        #expect(FileManager.default.fileExists(atPath: scratch.url.appending(path: "notes.txt").path))
    }

    @Test("a link named as an entry is neither followed nor removed: only regular files are entries")
    func linksIgnored() throws {
        let scratch = Scratch()
        let a = try Self.request("/a")
        do {
            let cache = try Self.open(scratch)
            cache.store(try Self.response("mine", for: a), for: a)
        }
        let outside = scratch.url.deletingLastPathComponent().appending(path: "netkit-outside-\(UUID().uuidString)")
        try Data("not the cache's".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        // An entry's name, pointing elsewhere.
        let name = scratch.files()[0]
        try FileManager.default.removeItem(at: scratch.url.appending(path: name))
        try FileManager.default.createSymbolicLink(at: scratch.url.appending(path: name), withDestinationURL: outside)
        let cache = try Self.open(scratch)
        #expect(cache.count == 0)
        #expect(cache.response(for: a) == nil)
        #expect(try Data(contentsOf: outside) == Data("not the cache's".utf8))
    }

    @Test("two caches opened on one directory in one process share it: entries, bound and count")
    func twoCachesShare() throws {
        let scratch = Scratch()
        let first = try Self.open(scratch)
        let second = try Self.open(scratch)
        let a = try Self.request("/a")
        first.store(try Self.response("shared", for: a), for: a)
        #expect(second.response(for: a)?.body == Data("shared".utf8))
        #expect(second.count == 1)
    }

    @Test("a directory another process holds is refused, naming the directory")
    func heldByAnotherProcess() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        // What another process's cache holds: the lock file, locked through a descriptor of its own.
        let descriptor = try #require(lockedFile(scratch.path + "/lock"))
        defer { closeFile(descriptor) }
        #expect(throws: ResponseCacheError.directoryInUse(path: scratch.url.standardizedFileURL.path)) {
            try Self.open(scratch)
        }
    }

    @Test("a lock let go while the opening waits is taken: a child process's copy of it, between fork and exec")
    func lockHeldForAMoment() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        // The copy a starting child process holds, let go when the opening says the lock is busy (its first wait).
        let held = try #require(lockedFile(scratch.path + "/lock"))
        let descriptor = Lock<Int32?>(held)
        defer { descriptor.withLock { $0.map(closeFile) } }
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .debug) { _, line in
            guard line.contains("asking again") else { return }
            descriptor.withLock { held in
                held.map(closeFile)
                held = nil
            }
        }
        let cache = try ResponseCache(directory: scratch.url, maximumBytes: 1000, logger: logger)
        #expect(cache.count == 0)
        #expect(descriptor.withLock { $0 } == nil, "the opening waited for the lock")
    }

    @Test("a path that is a file cannot be a cache directory: a clear error, nothing else")
    func unusableDirectory() throws {
        let scratch = Scratch()
        try Data("a file".utf8).write(to: scratch.url)
        do throws(ResponseCacheError) {
            _ = try ResponseCache(directory: scratch.url, maximumBytes: 1000)
            Issue.record("a file was taken as a directory")
        } catch {
            guard case .directoryUnusable(let path, _) = error else {
                Issue.record("expected directoryUnusable, got \(error)")
                return
            }
            #expect(path == scratch.url.standardizedFileURL.path)
            #expect(error.errorDescription?.contains("cannot use the directory") == true)
        }
    }

    @Test("files are readable by their owner only")
    func privateFiles() throws {
        let scratch = Scratch()
        let cache = try Self.open(scratch)
        let a = try Self.request("/a")
        cache.store(try Self.response("mine", for: a), for: a)
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.path + "/" + scratch.files()[0])
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: scratch.path)
        #expect((directory[.posixPermissions] as? Int) == 0o700)
    }
}

/// A descriptor of `path` (made if missing) holding its exclusive lock, as another process's cache would; `nil` when
/// it cannot be had.
private func lockedFile(_ path: String) -> Int32? {
    let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
    guard descriptor >= 0 else { return nil }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
        _ = close(descriptor)
        return nil
    }
    return descriptor
}

private func closeFile(_ descriptor: Int32) {
    _ = close(descriptor)
}
