/// What the server saw of an upload, as ``LoopbackResponse/uploadReport(for:status:)`` sends it back
/// in JSON: decode it on the client side to check a body the test never sees on the server.
package struct LoopbackUploadReport: Sendable, Equatable, Codable {
    /// The request method.
    package let method: String
    /// The request target, as sent.
    package let target: String
    /// The `Content-Length` the client declared, if any.
    package let contentLength: Int?
    /// Whether the body came with `Transfer-Encoding: chunked`.
    package let wasChunked: Bool
    /// Whether the client sent `Expect: 100-continue`.
    package let expectedContinue: Bool
    /// The body's summary (computed from the buffered body when the server keeps bodies whole).
    package let digest: LoopbackBodyDigest

    /// Reports on `request`.
    package init(_ request: LoopbackRequest) {
        method = request.method
        target = request.target
        contentLength = request.contentLength
        wasChunked = request.wasChunked
        expectedContinue = request.expectedContinue
        digest =
            request.bodyDigest ?? LoopbackBodyDigest(body: request.body, contentType: request.header("Content-Type"))
    }
}
