/// What a transport got wrong in one check of ``TransportConformance``: the check's name and what was seen
/// instead of what was expected.
public struct TransportConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The check that failed (``TransportConformanceCheck/name``).
    public let check: String
    /// What went wrong, in words meant for a test report.
    public let message: String

    /// Creates a failure of `check`.
    public init(check: String, message: String) {
        self.check = check
        self.message = message
    }

    /// `check: message`.
    public var description: String { "\(check): \(message)" }
}

/// Every failure of a ``TransportConformance/verify(_:options:)`` run, so one run reports them all.
public struct TransportConformanceFailures: Error, Sendable, CustomStringConvertible {
    /// The failures, in the order of ``TransportConformance/checks``.
    public let failures: [TransportConformanceFailure]

    /// Creates the error from its failures.
    public init(failures: [TransportConformanceFailure]) {
        self.failures = failures
    }

    /// One line per failure.
    public var description: String {
        "\(failures.count) transport conformance check(s) failed:\n"
            + failures.map { "- \($0)" }.joined(separator: "\n")
    }
}
