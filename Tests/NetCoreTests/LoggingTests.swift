import NetKitLock
import Testing
import NetCore

@Suite("Logging and redaction")
struct LoggingTests {
    @Test(
        "secrets are redacted",
        arguments: ["Authorization", "cookie", "Set-Cookie", "X-API-Key", "X-Refresh-Token", "Proxy-Authorization"])
    func redacts(name: String) {
        #expect(HeaderRedaction.redact(name: name, value: "s3cr3t") == "<redacted>")
        #expect(!HeaderRedaction.describe([name: "s3cr3t", "Accept": "*/*"]).contains("s3cr3t"))
    }

    @Test("ordinary headers are shown")
    func keeps() {
        #expect(HeaderRedaction.redact(name: "Accept", value: "application/json") == "application/json")
    }

    @Test("a sink receives messages at or above its level")
    func sink() {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: .info) { level, message in
            lines.withLock { $0.append("\(level): \(message)") }
        }
        logger.log(.debug, "hidden")
        logger.log(.info, "shown")
        logger.log(.error, "also shown")
        #expect(lines.withLock { $0 } == ["info: shown", "error: also shown"])
        #expect(!NetworkLogger.disabled.isEnabled(.error))
    }
}
