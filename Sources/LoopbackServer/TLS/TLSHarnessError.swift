import Foundation

/// Errors thrown by the TLS harness: ``TestCertificateAuthority``, ``NginxTLSServer`` and ``HarnessProcess``.
///
/// Each description says what failed and, where a missing program is the cause, how to install it, because the
/// reader is usually someone whose test was just skipped or failed on a machine set up differently.
package enum TLSHarnessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A program the harness runs is not installed (or not executable).
    case toolMissing(tool: String, installHint: String)
    /// A program could not be started, or ran and exited unsuccessfully: the command line, its exit status (or
    /// signal, shown as a negative number) and what it printed.
    case commandFailed(command: String, status: Int32, output: String)
    /// A program did not finish within its bound and was killed.
    case commandTimedOut(command: String, after: Duration, output: String)
    /// A file or folder of the harness could not be created, written or read.
    case fileSystem(operation: String, path: String, reason: String)
    /// nginx exited, or never became ready, within its bound: its error log (and standard error) say why.
    case serverFailedToStart(reason: String, errorLog: String)
    /// A socket call failed.
    case socketFailed(operation: String, errno: Int32)

    /// A readable explanation, for test failure messages.
    package var description: String {
        switch self {
        case let .toolMissing(tool, hint):
            return "TLS harness: \(tool) is not installed (\(hint))"
        case let .commandFailed(command, status, output):
            let how = status < 0 ? "was killed by signal \(-status)" : "exited with status \(status)"
            return "TLS harness: `\(command)` \(how): \(Self.trimmed(output))"
        case let .commandTimedOut(command, after, output):
            return "TLS harness: `\(command)` did not finish within \(after) and was killed: \(Self.trimmed(output))"
        case let .fileSystem(operation, path, reason):
            return "TLS harness: cannot \(operation) \(path): \(reason)"
        case let .serverFailedToStart(reason, errorLog):
            return "TLS harness: nginx did not start (\(reason)); its error log:\n\(Self.trimmed(errorLog))"
        case let .socketFailed(operation, code):
            return "TLS harness: \(operation) failed (errno \(code))"
        }
    }

    /// The last 4,000 characters of `output`: the end of a log is where the reason is, and a failure message
    /// holding megabytes helps nobody.
    private static func trimmed(_ output: String) -> String {
        let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count > 4000 else { return text.isEmpty ? "(no output)" : text }
        return "…" + text.suffix(4000)
    }
}
