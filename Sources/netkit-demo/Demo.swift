import Foundation
import NetKit

/// The demo's shared state: the server and a manager aimed at it.
struct Demo {
    let server: DemoServer
    let manager: NetworkManager

    init(server: DemoServer) {
        self.server = server
        manager = Self.manager(for: server)
    }

    /// A manager aimed at the demo's server. The demo provokes failures on purpose (401s, a 503) that NetKit would
    /// log at `error` on standard error, so its logger writes nothing here.
    static func manager(for server: DemoServer) -> NetworkManager {
        let manager = NetworkManager(
            baseURL: server.baseURL,
            userAgentConfiguration: UserAgentConfiguration(appName: "netkit-demo", appVersion: NetKitVersion.current)
        )
        manager.logger = .disabled
        return manager
    }
}
