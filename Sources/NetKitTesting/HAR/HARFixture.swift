#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A HAR file a test replays, or records from a live transport when it is missing or asked to (``HARMode``).
///
/// ```swift
/// let fixture = HARFixture(fixturesFolder.appendingPathComponent("users.har"), mode: .recordOnce)
/// let transport = try fixture.makeTransport(live: { URLSessionTransport() })
/// let manager = NetworkManager(baseURL: URL(string: "http://127.0.0.1:8080")!, transport: transport)
/// // … the test …
/// try await transport.finish()
/// ```
///
/// In Swift Testing, the ``HARFixtureTrait`` (`@Test(.harFixtures(in:))`) gives every test a fixture of its own,
/// named after it, and ``current`` hands it to the test.
public struct HARFixture: Sendable {
    /// The HAR file.
    public var fileURL: URL
    /// Replay, record once, or record again; `NETKIT_HAR_MODE` overrides it.
    public var mode: HARMode
    /// What a recording hides.
    public var redaction: HARRedaction
    /// What a replayed request must agree with a recorded one on.
    public var matchers: [HARMatcher]
    /// Whether a replay waits as the recording did.
    public var replaysTiming: Bool

    /// Describes a fixture.
    public init(
        _ fileURL: URL,
        mode: HARMode = .replay,
        redaction: HARRedaction = .standard,
        matchers: [HARMatcher] = HARMatcher.standard,
        replaysTiming: Bool = false
    ) {
        self.fileURL = fileURL
        self.mode = mode
        self.redaction = redaction
        self.matchers = matchers
        self.replaysTiming = replaysTiming
    }

    /// The fixture's transport: a strict replay of the file, or, when the mode (after `NETKIT_HAR_MODE`) says to
    /// record (``HARMode/rerecord``, or ``HARMode/recordOnce`` and no file yet), a recording of what `live` does.
    /// - Parameter live: Makes the transport to record from; called only when recording.
    /// - Throws: ``HARFixtureError`` for a missing fixture in replay mode, an unknown `NETKIT_HAR_MODE`, or nothing to
    ///   record from; the file's decoding error.
    public func makeTransport(
        live: (@Sendable () -> any HTTPTransport)? = nil
    ) throws -> HARFixtureTransport {
        let mode = try mode.overridden()
        let exists = FileManager.default.fileExists(atPath: fileURL.path)
        let records = mode == .rerecord || (mode == .recordOnce && !exists)
        if records {
            guard let live else { throw HARFixtureError.noLiveTransport(path: fileURL.path) }
            return HARFixtureTransport(
                fileURL: fileURL,
                role: .recording(HARRecordingTransport(wrapping: live(), to: fileURL, redaction: redaction)))
        }
        guard exists else { throw HARFixtureError.missing(path: fileURL.path) }
        return HARFixtureTransport(
            fileURL: fileURL,
            role: .replaying(
                try HARReplayTransport(contentsOf: fileURL, matchers: matchers, replaysTiming: replaysTiming)))
    }

    /// The transport of the test running now, when a ``HARFixtureTrait`` gave it one; `nil` elsewhere.
    public static var current: HARFixtureTransport? { scoped }

    /// ``current``, set by the trait for the test it runs (task-local: each test sees its own).
    @TaskLocal static var scoped: HARFixtureTransport?
}

/// The transport of a ``HARFixture``: it records or it replays, and says which.
public final class HARFixtureTransport: HTTPTransport {
    /// What the transport does.
    public enum Role: Sendable {
        /// It records what a live transport does into the fixture.
        case recording(HARRecordingTransport)
        /// It replays the fixture.
        case replaying(HARReplayTransport)
    }

    /// The fixture's file.
    public let fileURL: URL
    /// Whether it records or replays.
    public let role: Role

    init(fileURL: URL, role: Role) {
        self.fileURL = fileURL
        self.role = role
    }

    /// Whether it records (rather than replays).
    public var isRecording: Bool {
        if case .recording = role { return true }
        return false
    }

    /// What the recording's live transport refuses; nothing for a replay.
    public func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        switch role {
        case .recording(let recorder): recorder.unsupportedSetting(in: connection, for: head)
        case .replaying(let replay): replay.unsupportedSetting(in: connection, for: head)
        }
    }

    /// Sends `request` to the recording or the replay.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        switch role {
        case .recording(let recorder): try await recorder.send(request)
        case .replaying(let replay): try await replay.send(request)
        }
    }

    /// Ends the fixture's use: a recording waits for every exchange it started and writes the file; a replay has
    /// nothing to do.
    /// - Throws: the recording's error writing the file.
    public func finish() async throws {
        if case .recording(let recorder) = role { try await recorder.flush() }
    }
}
