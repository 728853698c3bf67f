#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether a fixture replays what it holds or records it anew.
///
/// A test sets its mode; the environment variable `NETKIT_HAR_MODE` (``environmentVariable``), set to `replay`,
/// `record-once` or `rerecord`, overrides it for a whole run: `NETKIT_HAR_MODE=rerecord swift test` records every
/// fixture again, `NETKIT_HAR_MODE=replay` in CI makes sure nothing reaches the network.
public enum HARMode: String, Sendable, Equatable, CaseIterable {
    /// Replay only: a missing fixture is an error, and nothing goes to the live transport.
    case replay
    /// Record the fixture if it does not exist yet, replay it if it does.
    case recordOnce = "record-once"
    /// Record the fixture again, replacing what it held.
    case rerecord

    /// `NETKIT_HAR_MODE`: the variable whose value overrides every test's mode.
    public static let environmentVariable = "NETKIT_HAR_MODE"

    /// This mode, or the one `environment` names under ``environmentVariable``.
    /// - Throws: ``HARFixtureError/unknownMode(_:)`` for a value that names no mode, rather than guessing.
    public func overridden(
        by environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HARFixtureError) -> HARMode {
        guard let value = environment[Self.environmentVariable], !value.isEmpty else { return self }
        guard let mode = HARMode(rawValue: value.lowercased()) else { throw .unknownMode(value) }
        return mode
    }
}

/// A fixture that cannot be used as asked.
public enum HARFixtureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Replay only, and the fixture does not exist.
    case missing(path: String)
    /// `NETKIT_HAR_MODE` names no mode.
    case unknownMode(String)
    /// A fixture to record, and no live transport to record from.
    case noLiveTransport(path: String)

    /// What is wrong, and what to do.
    public var description: String {
        switch self {
        case .missing(let path):
            "No HAR fixture at \(path), and the mode is replay only: run the test once with "
                + "\(HARMode.environmentVariable)=record-once (and a live transport) to record it, then commit it."
        case .unknownMode(let value):
            "\(HARMode.environmentVariable)=\(value) names no mode: use replay, record-once or rerecord."
        case .noLiveTransport(let path):
            "The fixture \(path) is to be recorded, but no live transport was given to record from."
        }
    }
}
