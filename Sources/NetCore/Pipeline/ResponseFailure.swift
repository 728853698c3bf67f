/// A response NetKit judged a failure, with the error the caller will see and the response it came from.
///
/// Stages between the status check and the caller decide on the response (401 → refresh, 503 → retry)
/// whatever error the request's `errorDecoder` made of it; the engine hands the caller `error` alone.
struct ResponseFailure: Error {
    /// What the caller receives: the `errorDecoder`'s error, an ``HTTPError`` or ``NetworkError/unauthorized``.
    package let error: any Error
    /// The attempt that failed.
    package let exchange: Exchange
    /// Whether the status alone made it a failure (no plugin threw): a road that hands every status to its
    /// caller (``RequestExecutor/forward(_:options:)``) returns such a response rather than throwing.
    var isStatusOnly = false

    package init(error: any Error, exchange: Exchange, isStatusOnly: Bool = false) {
        self.error = error
        self.exchange = exchange
        self.isStatusOnly = isStatusOnly
    }

    package var statusCode: Int { exchange.response.statusCode }
    package var head: HTTPResponseHead { exchange.response.head }
}
