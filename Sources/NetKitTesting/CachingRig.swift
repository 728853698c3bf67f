import Foundation
import LoopbackServer
import NetCore
import NetKitLock

/// What one caching check works with: a loopback server that counts the requests of each method and path, and the
/// engine's cache in front of it over the transport under test. The cache reads the real clock, so the checks use
/// responses whose freshness does not depend on time passing (`max-age=0` with a stale window, `max-age=3600`).
final class CachingRig: Sendable {
    /// The rule the check is about (`RFC 9111 §5.3`): what its failures begin with.
    let rule: String
    let context: ConformanceContext
    let server: LoopbackServer
    let executor: RequestExecutor
    /// How many times the server was asked for a target, read from the counts the handler keeps.
    private let counted: @Sendable (String) -> Int

    /// Starts a server whose `handler` answers each request knowing how many times its method and path have been
    /// asked, this time included (1 the first time).
    init(
        _ context: ConformanceContext, rule: String,
        _ handler: @escaping @Sendable (_ request: LoopbackRequest, _ count: Int) -> LoopbackResponse
    ) throws {
        let counts = Lock([String: Int]())
        self.server = try context.server { request in
            let count = counts.withLock { counts -> Int in
                counts[request.method + " " + request.path, default: 0] += 1
                return counts[request.method + " " + request.path, default: 0]
            }
            return handler(request, count)
        }
        var executor = RequestExecutor(transport: context.transport)
        executor.responseCache = ResponseCache(maximumBytes: 1 << 20)
        self.executor = executor
        self.counted = { target in counts.withLock { $0[target, default: 0] } }
        self.rule = rule
        self.context = context
    }

    /// How many times the server was asked for `target` (`"GET /path"`).
    func count(_ target: String) -> Int { counted(target) }

    /// Sends `method` to `path` through the cache: the status, body and header fields (names lowercased) the
    /// caller got, an error status included.
    func send(_ path: String, method: HTTPRequestMethod = .get, headers: [String: String] = [:]) async throws
        -> (status: Int, text: String, fields: [String: String])
    {
        let probe = CachingProbe(path: path, requestMethod: method, headers: headers)
        do {
            let response = try await executor.response(for: probe, baseURL: server.baseURL)
            return (
                response.statusCode, String(decoding: response.value, as: UTF8.self), Self.lowercased(response.headers)
            )
        } catch let error as HTTPError {
            return (error.statusCode, String(decoding: error.data, as: UTF8.self), Self.lowercased(error.headers))
        } catch {
            throw context.failure("\(rule): \(method.rawValue) \(path) failed: \(String(reflecting: error))")
        }
    }

    /// `fields` with their names lowercased, for lookups that do not depend on how a transport spells them.
    private static func lowercased(_ fields: [String: String]) -> [String: String] {
        Dictionary(fields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
