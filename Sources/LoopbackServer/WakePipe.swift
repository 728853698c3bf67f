#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe that every server thread polls next to its socket, so `stop()` can wake them all at once.
///
/// Signalling writes one byte that nobody ever reads: the read end then stays readable for good,
/// which makes the signal level-triggered and impossible to miss, however late a thread polls.
struct WakePipe: Sendable {
    /// Polled by server threads.
    let readEnd: Int32
    /// Written once by `stop()`.
    let writeEnd: Int32

    /// Opens the pipe (close-on-exec, so child processes of a test do not inherit it).
    static func make() throws(LoopbackServerError) -> WakePipe {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .socketFailed(operation: "pipe", errno: errno) }
        // pipe2() is not exported to Swift, so close-on-exec is set afterwards.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return WakePipe(readEnd: fds[0], writeEnd: fds[1])
    }

    /// Makes the read end readable for good.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Whether `signal()` has been called, without blocking.
    var isSignalled: Bool {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) > 0
    }

    /// Waits up to `milliseconds` for `signal()`; returns whether it came.
    func wait(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, milliseconds) > 0
    }

    /// Releases both descriptors; only once no thread polls them any more.
    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
        #else
        _ = Darwin.close(readEnd)
        _ = Darwin.close(writeEnd)
        #endif
    }
}
