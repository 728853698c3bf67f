import Foundation
import NetKitLock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the programs of the TLS harness (openssl, nginx, curl) as child processes, every wait bounded.
///
/// Tests use it too, to drive `curl` against ``NginxTLSServer`` and ``LoopbackProxy``.
package enum HarnessProcess {
    /// What a program that ran to its end left behind.
    package struct Result: Sendable {
        /// The exit status, or minus the number of the signal that ended the program.
        package let status: Int32
        /// Everything the program wrote to standard output (at most ``outputLimit`` bytes).
        package let standardOutput: Data
        /// Everything the program wrote to standard error (at most ``outputLimit`` bytes).
        package let standardError: Data

        /// Standard output as UTF-8 text.
        package var outputText: String { String(decoding: standardOutput, as: UTF8.self) }

        /// Standard error as UTF-8 text.
        package var errorText: String { String(decoding: standardError, as: UTF8.self) }

        /// Whether the program exited with status 0.
        package var succeeded: Bool { status == 0 }
    }

    /// The most bytes kept of each output stream; the rest is read and dropped so the program never blocks on a
    /// full pipe.
    package static let outputLimit = 16 << 20

    /// The path of the executable `name`, searched on `PATH` and then in the `sbin` folders, where Debian installs
    /// nginx and which are not on every user's `PATH`; `nil` when there is none.
    package static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders =
            path.split(separator: ":").map(String.init)
            + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for folder in folders where !folder.isEmpty {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` to its end, collecting what it prints, and returns however it exited.
    ///
    /// Standard input is `/dev/null`. A program still running after `timeout` is sent SIGTERM, then SIGKILL, and
    /// ``TLSHarnessError/commandTimedOut(command:after:output:)`` is thrown.
    /// - Throws: ``TLSHarnessError/toolMissing(tool:installHint:)`` when `executable` cannot be started,
    ///   ``TLSHarnessError/commandTimedOut(command:after:output:)``.
    package static func run(
        _ executable: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) throws(TLSHarnessError) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = childEnvironment
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try launch(process)
        // Read on threads of their own: a program that fills one pipe while this thread waits on the other (or on
        // the exit) would otherwise block for good.
        let standardOutput = PipeCollector(output.fileHandleForReading.fileDescriptor, keeping: output)
        let standardError = PipeCollector(error.fileHandleForReading.fileDescriptor, keeping: error)
        let finished = wait(for: exited, timeout: timeout)
        if !finished { stop(process, exited: exited, grace: .seconds(2)) }
        // The pipes end when the program does, unless a child of it still holds them: a bound, not a wait for good.
        let out = standardOutput.collected(waitingAtMost: .seconds(5))
        let err = standardError.collected(waitingAtMost: .seconds(5))
        let command = ([executable] + arguments).joined(separator: " ")
        guard finished else {
            let text = String(decoding: err + out, as: UTF8.self)
            throw .commandTimedOut(command: command, after: timeout, output: text)
        }
        let status =
            process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return Result(status: status, standardOutput: out, standardError: err)
    }

    // MARK: - Helpers shared with NginxTLSServer

    /// The caller's environment without proxy variables, and with messages in English: a harness program must
    /// never go through a proxy the machine names (the proxy tests pass theirs explicitly), and error texts are
    /// quoted in failure messages.
    static var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.lowercased().hasSuffix("_proxy") {
            environment[name] = nil
        }
        environment["LC_ALL"] = "C"
        return environment
    }

    /// Held while a process is started: one at a time in the whole test process.
    private static let launching = Lock(())

    /// Starts `process` from a thread of its own whose signal mask is empty, one launch at a time. Every child
    /// process a test starts goes through here.
    ///
    /// A child inherits the signal mask of the thread that spawns it, and the threads of Dispatch and of Swift's
    /// cooperative pool block SIGTERM among others: nginx started from a test would never see a SIGTERM. A fresh
    /// thread with nothing blocked passes nothing blocked on. Foundation's `Process.run()` on Linux is not safe to
    /// call from two threads at once: a full trait suite, which starts openssl, nginx, curl and the cache's crash
    /// writer from parallel tests, once crashed inside it (a bad read in its copy of the arguments).
    /// - Throws: ``TLSHarnessError/toolMissing(tool:installHint:)`` when the executable cannot be started.
    package static func launch(_ process: Process) throws(TLSHarnessError) {
        let executable = process.executableURL?.path ?? "(no executable)"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw .toolMissing(tool: executable, installHint: installHint(for: executable))
        }
        let outcome = Lock<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            do {
                try launching.withLock { _ in try process.run() }
            } catch {
                let message = "\(error)"
                outcome.withLock { $0 = message }
            }
            done.signal()
        }
        thread.name = "HarnessProcess launch"
        thread.start()
        // posix_spawn returns as soon as the child exists; the bound only guards against a wedged system.
        guard wait(for: done, timeout: .seconds(60)) else {
            throw .commandFailed(command: executable, status: -1, output: "the process did not start within 60 s")
        }
        if let failure = outcome.withLock({ $0 }) {
            throw .commandFailed(command: executable, status: -1, output: "cannot start it: \(failure)")
        }
    }

    /// Asks `process` to end (SIGTERM), then forces it (SIGKILL) if it has not after `grace`, and waits (bounded)
    /// for its exit to be noticed; `exited` is the semaphore its termination handler signals.
    static func stop(_ process: Process, exited: DispatchSemaphore, grace: Duration) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if wait(for: exited, timeout: grace) {
            // Lets later waits on the same semaphore see the exit too.
            exited.signal()
            return
        }
        // Still running after the grace period, so not yet reaped: the pid is still this process's.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        if wait(for: exited, timeout: .seconds(10)) { exited.signal() }
    }

    /// Waits for `semaphore` at most `timeout`; whether it was signalled.
    static func wait(for semaphore: DispatchSemaphore, timeout: Duration) -> Bool {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 1e15)))) == .success
    }

    /// How to install the program at `path`, for the error that says it is missing.
    static func installHint(for path: String) -> String {
        switch URL(fileURLWithPath: path).lastPathComponent {
        case "openssl": return "install it: apt-get install -y openssl"
        case "nginx": return NginxTLSServer.installHint
        case "curl": return "install it: apt-get install -y curl"
        default: return "install the package that provides it"
        }
    }
}

/// Drains one pipe on a thread of its own and keeps what it read.
private final class PipeCollector: Sendable {
    private let data = Lock(Data())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading `descriptor` until end of file; `pipe` is kept alive (and with it the descriptor) until then.
    init(_ descriptor: Int32, keeping pipe: Pipe) {
        let thread = Thread { [self] in
            withExtendedLifetime(pipe) { drain(descriptor) }
            finished.signal()
        }
        thread.name = "HarnessProcess output"
        thread.start()
    }

    private func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // Ends at end of file or on an error other than an interruption.
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            data.withLock { data in
                let room = HarnessProcess.outputLimit - data.count
                if room > 0 { data.append(contentsOf: buffer[..<min(count, room)]) }
            }
        }
    }

    /// What was read, once the pipe has ended or `timeout` has passed, whichever comes first.
    func collected(waitingAtMost timeout: Duration) -> Data {
        if HarnessProcess.wait(for: finished, timeout: timeout) { finished.signal() }
        return data.withLock { $0 }
    }
}
