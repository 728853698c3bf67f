import Foundation
import NetCore
import NetKitLock
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("File lock: a lock held a moment is waited for, one held on is refused")
struct FileLockTests {
    static func scratchFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("netkit-lock-\(UUID().uuidString)").path
    }

    @Test("a lock let go while the taker waits is taken (a starting process's copy, between fork and exec)")
    func letGoWhileWaiting() throws {
        let path = Self.scratchFile()
        defer { unlink(path) }
        let holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        let taker = open(path, O_RDWR | O_CLOEXEC)
        try #require(taker >= 0)
        defer { close(taker) }
        var waits = 0
        // The holder lets go when the taker first finds the lock held: no timing involved.
        let refused = FileLock.acquire(taker) { _ in
            waits += 1
            if waits == 1 { close(holder) }
        }
        #expect(refused == nil)
        #expect(waits == 1)
    }

    @Test("a lock held on is refused with EWOULDBLOCK after the last attempt")
    func heldOn() throws {
        let path = Self.scratchFile()
        defer { unlink(path) }
        let holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        defer { close(holder) }
        let taker = open(path, O_RDWR | O_CLOEXEC)
        try #require(taker >= 0)
        defer { close(taker) }
        var waits: [Int] = []
        #expect(FileLock.acquire(taker) { waits.append($0) } == EWOULDBLOCK)
        #expect(waits == Array(1..<FileLock.attempts))
    }
}
