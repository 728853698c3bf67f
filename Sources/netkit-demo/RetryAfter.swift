import Foundation
import NetKit

struct DailyReport: NetworkRequest {
    struct Report: Decodable, Sendable { let visits: Int }
    typealias Response = Report
    var path: String { "/reports/daily" }
    var method: HTTPMethod { .get }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 2, delay: 0.1) }
}

extension Demo {
    /// A 503 is transient: the GET is sent again after the wait the server asked for.
    func retryAfter() async throws {
        Output.section("A retry after 503 with Retry-After: 1")
        let started = ContinuousClock.now
        let report = try await manager.send(DailyReport())
        let elapsed = Output.seconds(ContinuousClock.now - started)
        Output.line("GET /reports/daily → \(report.visits) visits after \(elapsed)")
        Output.line("the 503 said Retry-After: 1, so the retry waited 1 s instead of the policy's own 0.1 s")
        Output.line("server: \(server.sinceLastLook().summary)")
    }
}
