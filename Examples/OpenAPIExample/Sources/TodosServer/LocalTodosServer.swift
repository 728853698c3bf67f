#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import ServiceLifecycle
import TodosAPI

/// Runs a ``TodoService`` on Hummingbird at 127.0.0.1 on a port the system picks, for as long as a body runs.
package enum LocalTodosServer {
    /// Why the server could not be started.
    package struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        package var description: String
    }

    /// Starts a server whose handlers share `ledger`, runs `body` with its base URL, then shuts it down gracefully
    /// (connections still open after 5 s are cancelled) and returns what `body` returned or rethrows what it threw.
    package static func run<T>(
        ledger: ServerLedger = ServerLedger(),
        _ body: (_ baseURL: URL, _ ledger: ServerLedger) async throws -> T
    ) async throws -> T {
        let router = Router()
        try TodoService(ledger: ledger).registerHandlers(on: router, middlewares: [BearerTokenMiddleware()])

        // Hummingbird says which port it bound only once it runs: onServerRunning hands it over.
        let (ports, portSink) = AsyncStream.makeStream(of: Int?.self, bufferingPolicy: .bufferingNewest(1))
        let quiet = Logger(label: "todos-server", factory: { _ in SwiftLogNoOpLogHandler() })
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port)
                portSink.finish()
            },
            logger: quiet
        )
        var configuration = ServiceGroupConfiguration(services: [app], logger: quiet)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        let services = ServiceGroup(configuration: configuration)

        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask {
                // A server that fails to start ends the port stream empty instead of leaving the wait below hanging.
                defer { portSink.finish() }
                try await services.run()
            }
            var portIterator = ports.makeAsyncIterator()
            guard let bound = await portIterator.next(), let port = bound else {
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                throw StartError(description: "the server stopped before it reported a port")
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body(URL(string: "http://127.0.0.1:\(port)")!, ledger))
            } catch {
                outcome = .failure(error)
            }
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return try outcome.get()
        }
    }
}
