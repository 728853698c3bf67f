import Foundation
import NetCore
import NetOpenAPI
import NetTransport
import TodosAPI

/// The generated `Client` over NetKit's OpenAPI transport, as the tests build it.
enum TodosClients {
    /// A client for the server at `baseURL`, over a `URLSessionTransport` of its own.
    /// - Parameters:
    ///   - credentials: Put on every request and renewed on 401; `nil`: none.
    ///   - retryPolicy: Retries of transient failures (503, 429 …); `nil`: none.
    ///   - clock: The clock retry waits are slept on.
    ///   - plugins: NetKit plugins every request goes through.
    static func client(
        baseURL: URL,
        credentials: (any CredentialProvider)? = nil,
        retryPolicy: RetryPolicy? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        plugins: [any Plugin] = []
    ) -> Client {
        var transport = NetKitClientTransport(
            executor: RequestExecutor(transport: URLSessionTransport(), plugins: plugins, clock: clock),
            credentials: credentials
        )
        transport.retryPolicy = retryPolicy
        // Up to the response head: a server that never answers fails the test instead of hanging it.
        transport.timeout = .seconds(30)
        return Client(serverURL: baseURL, transport: transport)
    }
}
