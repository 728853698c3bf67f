internal import CNetKitSpawn
import Foundation
import NetKitLock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the harness started with `posix_spawn`: its pid, its exit once reaped, and signals that can never
/// reach another process.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close every descriptor in the child
/// and copies each entry's whole 256-byte name, which reads past glibc's directory buffer once it holds about
/// 1,360 entries; a full test suite holds over 2,000 descriptors at its peak, and a launch then crashed the test
/// process. Here the child closes its descriptors from 3 up in one step (`posix_spawn_file_actions_addclosefrom_np`,
/// `close_range` in the kernel) and starts with no signal blocked or ignored, whichever thread spawns it.
package final class ChildProcess: Sendable {
    /// The child's process id.
    package let processIdentifier: Int32
    /// The exit status once the child is reaped: the status it exited with, or minus the number of the signal that
    /// ended it. Reaping happens under this lock, so a signal sent under it never reaches a reused pid.
    private let status = Lock<Int32?>(nil)
    /// Signalled once when the child is reaped, and again by every wait that consumed it.
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `executable` with `arguments` in `environment`, from `directory` when given; each standard stream
    /// is the descriptor given (which stays open in this process) or `/dev/null`.
    /// - Throws: ``TLSHarnessError/toolMissing(tool:installHint:)`` when `executable` is not an executable file,
    ///   ``TLSHarnessError/commandFailed(command:status:output:)`` when the system refuses to start it.
    package init(
        executable: String,
        arguments: [String],
        environment: [String: String] = HarnessProcess.childEnvironment,
        directory: String? = nil,
        standardInput: Int32? = nil,
        standardOutput: Int32? = nil,
        standardError: Int32? = nil
    ) throws(TLSHarnessError) {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw .toolMissing(tool: executable, installHint: HarnessProcess.installHint(for: executable))
        }
        let streams: [(source: Int32?, flags: Int32)] = [
            (standardInput, O_RDONLY), (standardOutput, O_WRONLY), (standardError, O_WRONLY),
        ]
        switch Self.spawn(executable, arguments, environment, directory: directory, streams: streams) {
        case .success(let pid):
            processIdentifier = pid
        case .failure(let failure):
            let command = ([executable] + arguments).joined(separator: " ")
            let reason = String(cString: strerror(failure.number))
            throw .commandFailed(command: command, status: -1, output: "cannot start it: \(reason)")
        }
        let reaper = Thread { [self] in reap() }
        reaper.name = "ChildProcess reaper"
        reaper.start()
    }

    /// Whether the child has not been reaped yet (it may have exited a moment ago).
    package var isRunning: Bool { status.withLock { $0 == nil } }

    /// The exit status once reaped, or minus the number of the signal that ended it; `nil` while it runs.
    package var exitStatus: Int32? { status.withLock { $0 } }

    /// Waits at most `timeout` for the child to end; its exit status, or `nil` if it still runs.
    @discardableResult
    package func waitForExit(timeout: Duration) -> Int32? {
        guard HarnessProcess.wait(for: exited, timeout: timeout) else { return nil }
        // Lets later waits see the exit too.
        exited.signal()
        return exitStatus
    }

    /// Sends `signal` to the child unless it has been reaped (its pid could then be another process's).
    package func send(_ signal: Int32) {
        status.withLock { status in
            if status == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Asks the child to end (SIGTERM), forces it (SIGKILL) if it has not after `grace`, and waits (bounded) until
    /// it is reaped.
    package func stop(grace: Duration) {
        guard isRunning else { return }
        send(SIGTERM)
        if waitForExit(timeout: grace) != nil { return }
        send(SIGKILL)
        waitForExit(timeout: .seconds(10))
    }

    /// Waits, on a thread of its own, until the child ends, then reaps it and records how it ended.
    private func reap() {
        // WNOWAIT: waits for the exit without reaping, so the pid stays this child's until the lock is held.
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        status.withLock { status in
            var raw: Int32 = 0
            var reaped = waitpid(processIdentifier, &raw, 0)
            while reaped == -1 && errno == EINTR { reaped = waitpid(processIdentifier, &raw, 0) }
            // The low 7 bits: the signal that ended it, 0 for an exit, whose status is in the next byte. Minimum
            // when nothing could be reaped (SIGCHLD ignored by someone: the kernel reaped it).
            let signal = raw & 0x7f
            status = reaped == -1 ? Int32.min : signal == 0 ? (raw >> 8) & 0xff : -signal
        }
        exited.signal()
    }

    /// `posix_spawn` with the streams in place, every other descriptor closed, no signal blocked and every
    /// signal's action the default; the child's pid, or the error number.
    private static func spawn(
        _ executable: String, _ arguments: [String], _ environment: [String: String], directory: String?,
        streams: [(source: Int32?, flags: Int32)]
    ) -> Result<pid_t, SpawnFailure> {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        for (target, stream) in streams.enumerated() {
            if let source = stream.source {
                posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
            } else {
                posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", stream.flags, 0)
            }
        }
        if let directory {
            let failure = netkit_spawn_add_change_directory(&actions, directory)
            guard failure == 0 else { return .failure(SpawnFailure(number: failure)) }
        }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Glibc)
        // Before glibc 2.34 (ENOSYS) the child keeps what is not closed at exec; the harness's own pipes are.
        _ = netkit_spawn_add_close_from(&actions, 3)
        #else
        // Darwin: every descriptor the file actions did not set up is closed at exec.
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        var nothing = sigset_t()
        sigemptyset(&nothing)
        posix_spawnattr_setsigmask(&attributes, &nothing)
        // Threads of Dispatch and of Swift's cooperative pool block SIGTERM among others, and a test runner ignores
        // SIGPIPE; a child inherits both, so nginx would never see a SIGTERM. Every signal back to its default.
        var everything = sigset_t()
        sigfillset(&everything)
        sigdelset(&everything, SIGKILL)
        sigdelset(&everything, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &everything)
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return result == 0 ? .success(pid) : .failure(SpawnFailure(number: result))
    }

    /// An error number from `posix_spawn`.
    private struct SpawnFailure: Error {
        let number: Int32
    }
}
