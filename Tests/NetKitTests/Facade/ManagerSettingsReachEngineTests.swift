import Foundation
import Testing
@testable import NetKit
import NetKitTesting

/// Every engine setting a `NetworkManager` has reaches both of its engines (`send`'s and `stream`'s), also when
/// the engines were already built before the change: the manager keeps one `RequestExecutor.Configuration` and
/// forwards each of its properties into it.
@Suite("NetworkManager settings reach the engine")
struct ManagerSettingsReachEngineTests {
    struct APIError: Decodable, Error {}

    struct Marker: Plugin {}

    /// One setting: how the manager changes it, and how the engine shows the change.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let change: @Sendable (NetworkManager) -> Void
        let reached: @Sendable (RequestExecutor.Configuration) -> Bool
        var testDescription: String { name }
    }

    static let cache = ResponseCache(maximumBytes: 1 << 16)
    static let jar = CookieJar()
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()
    static let userAgent = UserAgentConfiguration(
        appName: "Demo", appVersion: "1.0", bundleIdentifier: "demo", buildNumber: "1", osVersion: "1",
        networkVersion: "1")

    static let rows: [Row] = [
        Row(name: "responseLimit", change: { $0.responseLimit = 1234 }) {
            $0.responseLimit == 1234
        },
        Row(name: "errorPayloadLimit", change: { $0.errorPayloadLimit = 99 }) { $0.errorPayloadLimit == 99 },
        Row(name: "defaultTimeout", change: { $0.defaultTimeout = .seconds(7) }) {
            $0.defaultTimeout == .seconds(7)
        },
        Row(name: "responseCache", change: { $0.responseCache = cache }) { $0.responseCache === cache },
        Row(name: "cookieJar", change: { $0.cookieJar = jar }) { $0.cookieJar === jar },
        Row(name: "coalescesIdenticalRequests", change: { $0.coalescesIdenticalRequests = true }) {
            $0.coalescesIdenticalRequests && $0.coalescer != nil
        },
        Row(name: "errorModel", change: { $0.errorModel = APIError.self }) { $0.errorModel == APIError.self },
        Row(name: "decodesErrorModelOnSuccess", change: { $0.decodesErrorModelOnSuccess = true }) {
            $0.decodesErrorModelOnSuccess
        },
        Row(
            name: "redirectPolicy",
            change: { $0.redirectPolicy = RedirectPolicy(maximumHops: 3, refusesPrivateAddresses: true) }
        ) { $0.redirectPolicy.maximumHops == 3 && $0.redirectPolicy.refusesPrivateAddresses },
        Row(name: "credentialScope", change: { $0.credentialScope = .anyOrigin }) {
            $0.credentialScope.allowsAnyOrigin
        },
        Row(name: "credentialFields", change: { $0.credentialFields = .header("X-Key") }) {
            $0.credentialFields.headerNames == ["x-key"]
        },
        Row(name: "defaultHeaders → builder.defaultHeaders", change: { $0.defaultHeaders = ["X-Client": "ios"] }) {
            $0.builder.defaultHeaders == ["X-Client": "ios"]
        },
        Row(name: "defaultEncoder", change: { $0.defaultEncoder = encoder }) { $0.defaultEncoder === encoder },
        Row(name: "defaultDecoder", change: { $0.defaultDecoder = decoder }) { $0.defaultDecoder === decoder },
        Row(
            name: "defaultRetryPolicy",
            change: { $0.defaultRetryPolicy = RetryPolicy(maxRetryCount: 3, delay: 0) }
        ) { $0.defaultRetryPolicy?.maxRetryCount == 3 },
        Row(name: "responseDecoderProvider", change: { $0.responseDecoderProvider = { decoder } }) {
            $0.responseDecoderProvider?() === decoder
        },
        Row(name: "userAgentConfiguration → builder.userAgent", change: { $0.userAgentConfiguration = userAgent }) {
            $0.builder.userAgent == userAgent.generateUserAgentString()
        },
        Row(name: "plugins, logging last", change: { $0.plugins = [Marker()] }) {
            $0.plugins.count == 2 && $0.plugins.first is Marker && $0.plugins.last is LoggingPlugin
        },
        Row(
            name: "logging",
            change: { $0.logging = LoggingPlugin(logger: NetworkLogger(subsystem: "settings.test")) }
        ) { ($0.plugins.last as? LoggingPlugin)?.logger.subsystem == "settings.test" },
        Row(name: "logger", change: { $0.logger = NetworkLogger(subsystem: "settings.logger") }) {
            ($0.plugins.last as? LoggingPlugin)?.logger.subsystem == "settings.logger"
        },
    ]

    @Test("a setting changed on the manager reaches both engines, built before the change or not", arguments: rows)
    func reaches(_ row: Row) {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(204) })
        let before = manager.makeExecutor(streaming: false).0.configuration
        #expect(!row.reached(before), "the default differs from the value the row sets")
        row.change(manager)
        for streaming in [false, true] {
            let engine = manager.makeExecutor(streaming: streaming).0
            #expect(row.reached(engine.configuration), "\(streaming ? "stream" : "send")'s engine")
            #expect(engine.configuration.line === manager.requestLine, "the manager's line stays")
        }
        #expect(row.reached(manager.configuration.engine.withLogging(manager.logging)), "configuration reads it back")
    }

    @available(*, deprecated, message: "tests the deprecated names")
    @Test("the former names responseSizeLimit and requestTimeout read and write the engine's settings")
    func formerNamesForward() {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(204) })
        manager.responseSizeLimit = 4321
        manager.requestTimeout = .seconds(9)
        #expect(manager.responseLimit == 4321 && manager.responseSizeLimit == 4321)
        #expect(manager.defaultTimeout == .seconds(9) && manager.requestTimeout == .seconds(9))
    }

    @Test("a manager built from its configuration has the same engine settings", arguments: rows)
    func roundTrips(_ row: Row) {
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in .status(204) })
        row.change(manager)
        let copy = NetworkManager(configuration: manager.configuration)
        #expect(row.reached(copy.makeExecutor(streaming: false).0.configuration))
    }
}

extension RequestExecutor.Configuration {
    /// The configuration as the manager's engines get it: its plugins, then `logging`.
    fileprivate func withLogging(_ logging: LoggingPlugin) -> Self {
        var configuration = self
        configuration.plugins.append(logging)
        return configuration
    }
}
