import NetCore
import NetKitLock

/// Log lines, kept.
final class LockedLines: Sendable {
    private let lines = Lock([String]())
    var all: [String] { lines.withLock { $0 } }
    var logger: NetworkLogger {
        NetworkLogger(subsystem: "test", minimumLevel: .debug) { [self] _, line in lines.withLock { $0.append(line) } }
    }
}
