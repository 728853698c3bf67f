import Foundation
import NetKitLock
import Testing
import NetCore

@Suite("cURL lines")
struct CURLCommandTests {
    static let secrets = ["tok-s3cr3t", "sid-s3cr3t", "q-s3cr3t", "pw-s3cr3t"]

    /// A POST carrying a secret in every place one can hide: query, Authorization, Cookie, a token header, the body.
    static func request() throws -> TransportRequest {
        let url = try #require(URL(string: "https://api.test/v1/sessions?client=ios&key=q-s3cr3t&note=a%20b"))
        var request = TransportRequest(
            head: try HTTPRequestHead(method: .post, url: url),
            body: UploadSource(data: Data(#"{"user":"o'neil","password":"pw-s3cr3t"}"#.utf8))
        )
        try request.setHeader("Authorization", "Bearer tok-s3cr3t")
        try request.setHeader("Cookie", "sid=sid-s3cr3t")
        try request.setHeader("X-Refresh-Token", "tok-s3cr3t")
        try request.setHeader("Content-Type", "application/json")
        return request
    }

    /// The lines a logger at `level` writes while the plugin handles one initial attempt.
    static func lines(level: NetworkLogger.Level, secrets: CURLSecrets = .hidden) async throws -> [String] {
        let lines = Lock<[String]>([])
        let logger = NetworkLogger(subsystem: "test", minimumLevel: level) { level, line in
            lines.withLock { $0.append("\(level.name): \(line)") }
        }
        let plugin = LoggingPlugin(logger: logger, includesCURL: true, curlSecrets: secrets)
        #expect(plugin.hooks.contains(.willSend), "the engine must call willSend for the curl line")
        var request = try request()
        try await plugin.willSend(
            &request, context: PluginContext(requestNumber: 1, attempt: 1, reason: .initial, isStreaming: false))
        return lines.withLock { $0 }
    }

    @Test("includesCURL writes the curl line at the default level (error), redacted")
    func defaultLevel() async throws {
        let lines = try await Self.lines(level: .error)
        #expect(lines.count == 1, "only the curl line: \(lines)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("debug: curl -X POST 'https://api.test/v1/sessions?client=…&key=…&note=…'"))
        #expect(line.contains("-H 'Authorization: <redacted>'"))
        #expect(line.contains("-H 'Cookie: <redacted>'"))
        #expect(line.contains("-H 'X-Refresh-Token: <redacted>'"))
        #expect(line.contains("-H 'Content-Type: application/json'"))
        #expect(line.contains(#""password":"<redacted>""#))
        for secret in Self.secrets { #expect(!line.contains(secret), "\(line)") }
    }

    @Test("a header that carries a URL keeps its query names and hides their values, as the request's URL does")
    func urlHeader() throws {
        var request = try Self.request()
        try request.setHeader("Referer", "https://app.test/callback?code=c-s3cr3t&state=1")
        let line = CURLCommand.render(request, secrets: .hidden)
        #expect(line.contains("-H 'Referer: https://app.test/callback?code=…&state=…'"), "\(line)")
        #expect(!line.contains("c-s3cr3t"))
        let revealed = CURLCommand.render(request, secrets: .unredactedDoNotUseInProduction)
        #expect(revealed.contains("code=c-s3cr3t&state=1"))
    }

    @Test("a disabled logger writes no curl line, and without includesCURL the default level has no willSend")
    func disabled() async throws {
        let plugin = LoggingPlugin(logger: .disabled, includesCURL: true)
        #expect(!plugin.hooks.contains(.willSend))
        let quiet = LoggingPlugin(logger: NetworkLogger(subsystem: "test", minimumLevel: .error) { _, _ in })
        #expect(!quiet.hooks.contains(.willSend))
    }

    @Test("the loudly named switch writes the request exactly, shell-quoted")
    func unredacted() throws {
        let line = CURLCommand.render(try Self.request(), secrets: .unredactedDoNotUseInProduction)
        #expect(
            line == """
                curl -X POST 'https://api.test/v1/sessions?client=ios&key=q-s3cr3t&note=a%20b' \
                -H 'Authorization: Bearer tok-s3cr3t' -H 'Cookie: sid=sid-s3cr3t' -H 'X-Refresh-Token: tok-s3cr3t' \
                -H 'Content-Type: application/json' --data-binary '{"user":"o'\\''neil","password":"pw-s3cr3t"}'
                """)
    }

    @Test("the switch reaches the plugin's line; HEAD, empty values and URL brackets are rendered as curl needs")
    func pluginAndCurlSyntax() async throws {
        let lines = try await Self.lines(level: .error, secrets: .unredactedDoNotUseInProduction)
        #expect(lines.first?.contains("key=q-s3cr3t") == true)
        #expect(lines.first?.contains("'Authorization: Bearer tok-s3cr3t'") == true)
        var head = TransportRequest(
            head: try HTTPRequestHead(
                method: .head, url: try #require(URL(string: "https://x.test/a?ids%5B%5D=1&q=%5Bx%5D"))))
        try head.setHeader("X-Empty", "")
        let rendered = CURLCommand.render(head, secrets: .unredactedDoNotUseInProduction)
        #expect(rendered == "curl --head 'https://x.test/a?ids%5B%5D=1&q=%5Bx%5D' -H 'X-Empty;'")
        var bracketed = TransportRequest(
            head: try HTTPRequestHead(url: try #require(URL(string: "http://[::1]:8080/x"))))
        try bracketed.setHeader("Accept", "*/*")
        #expect(
            CURLCommand.render(bracketed, secrets: .unredactedDoNotUseInProduction)
                == "curl --globoff -X GET 'http://[::1]:8080/x' -H 'Accept: */*'")
    }

    @Test(
        "NetKit's own test bundle defaults to off; NETKIT_LOG_LEVEL still wins; every other program defaults to error")
    func defaultLevels() {
        #expect(
            NetworkLogger.defaultLevel(environment: [:], executable: "/x/.build/debug/NetKitPackageTests.xctest") == nil
        )
        #expect(
            NetworkLogger.defaultLevel(
                environment: ["NETKIT_LOG_LEVEL": "error"], executable: "/x/NetKitPackageTests.xctest") == .error)
        #expect(
            NetworkLogger.defaultLevel(environment: [:], executable: "/x/.build/debug/AppPackageTests.xctest") == .error
        )
        #expect(NetworkLogger.defaultLevel(environment: [:], executable: "/usr/bin/my-app") == .error)
        #expect(NetworkLogger.defaultLevel(environment: ["NETKIT_LOG_LEVEL": "DEBUG"], executable: "my-app") == .debug)
        #expect(NetworkLogger.defaultLevel(environment: ["NETKIT_LOG_LEVEL": "off"], executable: "my-app") == nil)
    }
}
