#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Takes a file's exclusive `flock` for the disk cache's directory and a download's partial file: one decision for
/// both, since both meet the same trap.
///
/// A lock this process let go a moment ago can still read as held: a child process being started (by this process,
/// from any thread) holds a copy of every descriptor from its fork until its exec closes them (`O_CLOEXEC`), and a
/// `flock` lasts while any copy is open. So a held lock is asked for again, ``retryInterval`` apart, up to
/// ``attempts`` times (a second in all), before it counts as someone else's.
package enum FileLock {
    /// 50: the times a held lock is asked for before it counts as held.
    package static let attempts = 50
    /// 20 ms.
    package static let retryInterval: Duration = .milliseconds(20)

    /// Takes the exclusive lock of `descriptor`'s file.
    /// - Parameter onBusy: Told before each wait, with the attempt that found the lock held (1, 2…).
    /// - Returns: `nil` once the lock is taken; else the `errno` that refused it (`EWOULDBLOCK` when it stayed held).
    package static func acquire(_ descriptor: Int32, onBusy: (_ attempt: Int) -> Void = { _ in }) -> Int32? {
        var attempt = 1
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK, attempt < attempts else { return code }
            onBusy(attempt)
            attempt += 1
            let interval = retryInterval.components
            var wait = timespec(tv_sec: Int(interval.seconds), tv_nsec: Int(interval.attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&wait, &remaining) != 0, errno == EINTR { wait = remaining }
        }
        return nil
    }
}
