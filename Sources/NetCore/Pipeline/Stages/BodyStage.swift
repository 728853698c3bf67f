#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads what must be read of a response body before the stages outside judge it.
///
/// For `send`: a 2xx body whole (failing past the response limit), any other body up to the error-payload limit
/// (cut there, marked truncated). For `stream`: a 2xx body is left for the caller; any other body is drained up to
/// the limit, and one byte more is ``StreamingError/errorPayloadTooLarge(limitBytes:)``. For a ready-made request
/// (`forward`): every body is left for the caller, and a head that declares a `Content-Length` beyond the limit is
/// ``NetworkError/responseTooLarge(limitBytes:)`` at once. The body of a rejection (a 401, or what the credential
/// provider's ``CredentialProvider/isRejection(_:)`` names) is never read: the credential stage answers it by
/// renewing, or it becomes ``NetworkError/unauthorized``.
package struct BodyStage: Sendable {
    package enum Mode: Sendable {
        case collect(responseLimit: Int, errorLimit: Int)
        case stream(errorLimit: Int)
        /// Every body, whatever the status, is left unread for the caller (``RequestExecutor/forward(_:options:)``),
        /// which reads at most `limit` bytes of it: a head that declares more is refused.
        case handOver(limit: Int)
    }

    package let mode: Mode
    package let state: RequestState
    /// The credential provider, asked which statuses are rejections.
    package var credentials: any CredentialProvider = NoCredentials()
    /// Whether an attempt whose connection closed before any response is sent once more, by the engine alone: the
    /// request is safe to repeat (an idempotent method, or an `Idempotency-Key`) and its body can be sent again.
    package var resendsUnanswered = false

    /// Whether `error`, thrown by the transport instead of a response head, is a connection that closed or was reset
    /// unanswered (``TransportError/Kind/connectionReset``), which a request that ``resendsUnanswered`` sends once
    /// more. A kept-alive connection the server dropped as the request arrived looks like this; a connection lost
    /// while a response was read, a timeout, a refused connection or a bad response do not.
    package func resendsAfter(_ error: TransportError) -> Bool {
        resendsUnanswered && error.kind == .connectionReset
    }

    /// Tells the transport that the body is gathered here anyway, and how much of it is kept.
    package func prepare(_ request: inout TransportRequest) {
        if case .collect(let responseLimit, let errorLimit) = mode {
            request.wholeBody = WholeBodyLimits(success: responseLimit, failure: errorLimit)
        }
    }

    /// Reads what must be read of the body of the exchange the transport returned.
    nonisolated(nonsending) package func read(_ exchange: inout Exchange) async throws {
        let response = exchange.response
        let status = response.statusCode
        if !(200..<300).contains(status), credentials.isRejection(response.head) { return }
        switch mode {
        case .collect(let responseLimit, let errorLimit):
            if (200..<300).contains(status) {
                let limits = WholeBodyLimits(success: responseLimit, failure: errorLimit)
                if limits.refusesAtHead(response.head, method: exchange.request.method) {
                    throw NetworkError.responseTooLarge(limitBytes: responseLimit)
                }
                // A body the transport handed over whole is taken as it is, without the async call `collect`
                // would be (one task-stack allocation per request); `collect` refuses one over the limit.
                if let whole = response.body.bufferedData, whole.count <= responseLimit {
                    exchange.data = whole
                } else {
                    exchange.data = try await response.body.collect(
                        upTo: responseLimit, expectedLength: response.declaredLength)
                }
            } else {
                let (data, truncated) = try await response.body.collectPrefix(upTo: errorLimit)
                exchange.data = data
                exchange.isTruncated = truncated
            }
        case .stream(let errorLimit):
            guard !(200..<300).contains(status) else { return }
            let (data, truncated) = try await response.body.collectPrefix(upTo: errorLimit)
            // A redirect's body is dropped when it is followed, and only its beginning shown when it is not.
            if truncated, !RedirectStateMachine.isRedirect(response.head) {
                throw StreamingError.errorPayloadTooLarge(limitBytes: errorLimit)
            }
            exchange.isTruncated = truncated
            exchange.data = data
        case .handOver(let limit):
            if response.head.declaresBody(longerThan: limit, method: exchange.request.method) {
                throw NetworkError.responseTooLarge(limitBytes: limit)
            }
            return
        }
        state.recordReceived(exchange.data?.count ?? 0)
    }
}
