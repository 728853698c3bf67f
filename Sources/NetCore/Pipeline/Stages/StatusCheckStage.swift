#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a response whose status is not 2xx into the error the caller will see: ``NetworkError/unauthorized``
/// for a rejection (what the credential provider's ``CredentialProvider/isRejection(_:)`` says: 401 by default), the
/// request's `errorDecoder` result, the ``ServerError`` of its error model, or ``HTTPError``; the
/// failure keeps the response for the stages outside it (renewal on 401, retries by status).
struct StatusCheckStage: Sendable {
    package let errorDecoder: CallerIsolated<((Data) -> (any Error)?)?>
    /// The request's (or the engine's) error model, `nil` when neither names one.
    package var errorModel: ServerErrorDecoding? = nil
    /// The credential provider, asked which statuses are rejections.
    package var credentials: any CredentialProvider = NoCredentials()

    /// Judges the exchange the stages inside returned: returns for a 2xx, throws the failure otherwise. A check
    /// after the road inside rather than a stage around it, so that it costs no call on the road of a success.
    nonisolated(nonsending) package func check(_ exchange: Exchange) async throws {
        let status = exchange.response.statusCode
        guard !(200..<300).contains(status) else { return }
        if credentials.isRejection(exchange.response.head) {
            throw ResponseFailure(error: NetworkError.unauthorized, exchange: exchange, isStatusOnly: true)
        }
        let data = exchange.data ?? Data()
        if let decoded = await errorDecoder.read({ $0?(data) }) {
            throw ResponseFailure(error: decoded, exchange: exchange)
        }
        if let error = errorModel?.error(head: exchange.response.head, body: data, isTruncated: exchange.isTruncated) {
            throw ResponseFailure(error: error, exchange: exchange)
        }
        let error = HTTPError(
            statusCode: status, data: data, headers: exchange.response.head.headerFields.dictionary,
            isTruncated: exchange.isTruncated
        )
        throw ResponseFailure(error: error, exchange: exchange, isStatusOnly: true)
    }
}
