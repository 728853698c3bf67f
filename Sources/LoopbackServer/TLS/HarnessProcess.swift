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
        let output = try makePipe()
        let errors: (read: Int32, write: Int32)
        do throws(TLSHarnessError) { errors = try makePipe() } catch {
            for end in [output.read, output.write] { close(end) }
            throw error
        }
        let child: ChildProcess
        do throws(TLSHarnessError) {
            child = try ChildProcess(
                executable: executable, arguments: arguments, standardOutput: output.write, standardError: errors.write)
        } catch {
            for end in [output.read, output.write, errors.read, errors.write] { close(end) }
            throw error
        }
        // The child has its copies; this process's would keep the pipes open after it ends.
        _ = close(output.write)
        _ = close(errors.write)
        // Read on threads of their own: a program that fills one pipe while this thread waits on the other (or on
        // the exit) would otherwise block for good.
        let standardOutput = PipeCollector(output.read)
        let standardError = PipeCollector(errors.read)
        let status = child.waitForExit(timeout: timeout)
        if status == nil { child.stop(grace: .seconds(2)) }
        // The pipes end when the program does, unless a child of it still holds them: a bound, not a wait for good.
        let out = standardOutput.collected(waitingAtMost: .seconds(5))
        let err = standardError.collected(waitingAtMost: .seconds(5))
        guard let status else {
            let command = ([executable] + arguments).joined(separator: " ")
            let text = String(decoding: err + out, as: UTF8.self)
            throw .commandTimedOut(command: command, after: timeout, output: text)
        }
        return Result(status: status, standardOutput: out, standardError: err)
    }

    /// A pipe whose two ends are closed at exec: only a child given one as a standard stream holds it.
    /// - Throws: ``TLSHarnessError/socketFailed(operation:errno:)`` when the system has no descriptors left.
    package static func makePipe() throws(TLSHarnessError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .socketFailed(operation: "pipe", errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
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

/// Drains one pipe on a thread of its own, keeps what it read, and closes it.
private final class PipeCollector: Sendable {
    private let data = Lock(Data())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading `descriptor`, which it then owns, until end of file.
    init(_ descriptor: Int32) {
        let thread = Thread { [self] in
            drain(descriptor)
            _ = close(descriptor)
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
