import Foundation  // FileHandle: not in FoundationEssentials
#if canImport(os)
import os
#endif

/// Where NetKit writes what it does: `os.Logger` on Apple platforms, standard error elsewhere, or a sink of
/// your own — of lines (``Sink``) or of structured records (``RecordSink``, what NetLogging's swift-log bridge uses).
///
/// The logger redacts nothing itself: it writes each message and record exactly as it is given (to `os.Logger` as
/// public text), so hiding credentials is the work of whoever writes. NetKit's one writer, `LoggingPlugin`, does it
/// before it writes: its lines and records show the request's URL with the values of every query item the request
/// declares as a credential (``TransportRequest/credentialFields``) and of those ``RedactionRules`` name replaced by
/// `…`, no request header but the request ID (and that only when neither hides it), no response header (so no
/// `Set-Cookie`), and errors as `LogRedaction.describe(_:)` words them. Its `curl` lines also replace the value of
/// every header the request declares or the rules name (`Authorization`, `Proxy-Authorization`, `Cookie`,
/// secret-looking names) and secret-looking body fields, unless `curlSecrets: .unredactedDoNotUseInProduction` asks
/// for everything. A message you pass to ``log(_:_:)`` yourself is written as you give it.
///
/// Messages below ``minimumLevel`` are dropped on every platform (`curl` lines, which a developer asks for, whatever
/// the level), and nothing is written when it is `nil`. The default comes from the `NETKIT_LOG_LEVEL` environment
/// variable (`debug`, `info`, `notice`, `error`, `off`) and is `error`: a failed request is written. (NetKit's own
/// test bundle alone defaults to `off`: see ``environmentLevel``.)
public struct NetworkLogger: Sendable {
    /// The importance of a message.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Every request and response, with timing.
        case debug
        /// Retries and token refreshes.
        case info
        /// Requests the caller cancelled.
        case notice
        /// Requests that failed: visible at the default level.
        case error

        /// Orders levels by importance.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name as written in log lines and `NETKIT_LOG_LEVEL`.
        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .error: "error"
            }
        }
    }

    /// A function that receives every message at or above ``minimumLevel``.
    public typealias Sink = @Sendable (Level, String) -> Void

    /// A function that receives every record at or above ``minimumLevel``: the message with the request's facts
    /// (method, redacted URL, status, attempt, duration, request number and ID, operation) as fields.
    public typealias RecordSink = @Sendable (NetworkLogRecord) -> Void

    /// The subsystem, as in `os.Logger`.
    public let subsystem: String
    /// The category, as in `os.Logger`.
    public let category: String
    /// Messages below this level are dropped (`nil`: none are written).
    public let minimumLevel: Level?
    private let sink: Sink?
    private let recordSink: RecordSink?

    /// A logger that writes to the system's log (`os.Logger`) or to standard error.
    public init(subsystem: String, category: String = "network", minimumLevel: Level? = NetworkLogger.environmentLevel)
    {
        self.subsystem = subsystem
        self.category = category
        self.minimumLevel = minimumLevel
        self.sink = nil
        self.recordSink = nil
    }

    /// A logger that hands every message at or above `minimumLevel` to `sink`.
    public init(subsystem: String, category: String = "network", minimumLevel: Level = .debug, sink: @escaping Sink) {
        self.subsystem = subsystem
        self.category = category
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.recordSink = nil
    }

    /// A logger that hands every record at or above `minimumLevel` (none when `nil`) to `recordSink`, with the
    /// facts behind each line as fields.
    ///
    /// ```swift
    /// let logger = NetworkLogger(subsystem: "com.example.app", minimumLevel: .info, recordSink: { record in
    ///     print(record.level.name, record.event, record.statusCode ?? 0, record.message)
    /// })
    /// ```
    public init(
        subsystem: String, category: String = "network", minimumLevel: Level?,
        recordSink: @escaping RecordSink
    ) {
        self.subsystem = subsystem
        self.category = category
        self.minimumLevel = minimumLevel
        self.sink = nil
        self.recordSink = recordSink
    }

    /// A logger that writes nothing.
    public static let disabled = NetworkLogger(subsystem: "NetKit", minimumLevel: nil)

    /// EKNetwork's default `loggerSubsystem`, a placeholder meant to be replaced; never shown on Linux.
    public static let placeholderSubsystem = "com.yourapp.networking"

    /// The line written to standard error where `os` is missing: `[subsystem:category] level: message`, with
    /// `NetKit` in place of the placeholder subsystem.
    public func standardErrorLine(_ level: Level, _ message: String) -> String {
        let name = subsystem == Self.placeholderSubsystem ? "NetKit" : subsystem
        return "[\(name):\(category)] \(level.name): \(message)\n"
    }

    /// The level named by `NETKIT_LOG_LEVEL`, `error` when unset, `nil` for `off`.
    ///
    /// One exception, for NetKit's own tests: when the variable is unset and the process is NetKit's test bundle
    /// (`NetKitPackageTests.xctest`), the default is `off`, because those tests provoke hundreds of failures on
    /// purpose and `swift test` would print each one; `NETKIT_LOG_LEVEL=error swift test` shows them. Any other
    /// program, your own tests included, gets `error`.
    public static var environmentLevel: Level? {
        defaultLevel(environment: ProcessInfo.processInfo.environment, executable: CommandLine.arguments.first ?? "")
    }

    /// ``environmentLevel`` for a given environment and executable path.
    package static func defaultLevel(environment: [String: String], executable: String) -> Level? {
        let named = environment["NETKIT_LOG_LEVEL"]?.lowercased()
        if named == nil, executable.split(separator: "/").last == "NetKitPackageTests.xctest" { return nil }
        switch named {
        case "debug": return .debug
        case "info": return .info
        case "notice": return .notice
        case "off", "none": return nil
        default: return .error
        }
    }

    /// Whether a message at `level` would be written; check it before building an expensive message.
    public func isEnabled(_ level: Level) -> Bool {
        guard let minimumLevel else { return false }
        return level >= minimumLevel
    }

    /// Whether records go to a ``RecordSink``, which uses the fields a line sink ignores.
    var isStructured: Bool { recordSink != nil }

    /// Writes `message` at `level` (to a ``RecordSink`` as a record of event ``NetworkLogRecord/Event/message``).
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        if let recordSink {
            recordSink(NetworkLogRecord(level: level, event: .message, message: message()))
        } else {
            write(level, message())
        }
    }

    /// Writes the record `make` builds, at `level`, when that level is enabled (`make` is not called otherwise).
    package func log(_ level: Level, record make: () -> NetworkLogRecord) {
        guard isEnabled(level) else { return }
        emit(make())
    }

    /// Writes the record whatever ``minimumLevel`` says, unless the logger writes nothing: for output a developer
    /// asked for explicitly (`LoggingPlugin`'s `curl` lines).
    func logRegardlessOfLevel(record make: () -> NetworkLogRecord) {
        guard minimumLevel != nil else { return }
        emit(make())
    }

    private func emit(_ record: NetworkLogRecord) {
        if let recordSink {
            recordSink(record)
        } else {
            write(record.level, record.message)
        }
    }

    private func write(_ level: Level, _ text: String) {
        if let sink {
            sink(level, text)
            return
        }
        #if canImport(os)
        let logger = Logger(subsystem: subsystem, category: category)
        switch level {
        case .debug: logger.debug("\(text, privacy: .public)")
        case .info: logger.info("\(text, privacy: .public)")
        case .notice: logger.notice("\(text, privacy: .public)")
        case .error: logger.error("\(text, privacy: .public)")
        }
        #else
        FileHandle.standardError.write(Data(standardErrorLine(level, text).utf8))
        #endif
    }
}
