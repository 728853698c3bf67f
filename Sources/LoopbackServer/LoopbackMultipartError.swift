/// Why ``LoopbackRequest/multipartParts()`` rejected a body.
///
/// The parser is deliberately strict (it checks an encoder), so some inputs that lenient
/// parsers accept, such as a preamble or transport padding, are errors here.
package enum LoopbackMultipartError: Error, Sendable, Equatable, Codable {
    /// The request has no `Content-Type: multipart/form-data` header.
    case notMultipartFormData(contentType: String?)
    /// The `boundary` parameter is missing, duplicated, or not a valid RFC 2046 boundary.
    case invalidBoundary(String?)
    /// The body does not start with the dash-boundary line.
    case missingOpeningDelimiter
    /// A delimiter line is followed by something other than CRLF or `--`; `offset` is into the body.
    case malformedDelimiter(offset: Int)
    /// The body ends without a close delimiter.
    case missingCloseDelimiter
    /// Bytes other than one final CRLF follow the close delimiter.
    case unexpectedEpilogue
    /// A part's header section is malformed (bad line, bad field name, folding, not UTF-8, unterminated).
    case malformedPartHeader(offset: Int)
    /// A part lacks `Content-Disposition`, has more than one, or it is not a valid `form-data` disposition.
    case invalidContentDisposition(String?)
    /// The `Content-Disposition` header has no `name` parameter.
    case missingName
}
