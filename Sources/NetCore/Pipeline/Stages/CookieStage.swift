/// Sends the ``CookieJar``'s cookies with each attempt and keeps the cookies each response sets, whatever its
/// status (the status check sits outside this stage), except a response the cache answered: its cookies were kept
/// when it first arrived.
package struct CookieStage: RequestStage {
    package let jar: CookieJar

    package init(jar: CookieJar) {
        self.jar = jar
    }

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        var request = request
        jar.addCookies(to: &request)
        let exchange = try await next(request)
        if !exchange.isFromCache {
            let fields = exchange.response.head.headerFields.values(for: "Set-Cookie")
            if !fields.isEmpty {
                // Filed under the URL that answered: this hop's (the engine follows redirects, one hop at a time).
                let target = CookieTarget(exchange.request.head)
                jar.receive(fields, from: target)
            }
        }
        return exchange
    }
}
