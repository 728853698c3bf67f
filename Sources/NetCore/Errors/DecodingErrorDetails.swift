#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Adds what the response was to a `DecodingError`, so its text says why a body did not decode: an HTML error page
/// answering a JSON request reads `… The given data was not valid JSON. The response: status 200, Content-Type
/// "text/html", 28 bytes, starting "<html>…"`.
///
/// The error stays a `DecodingError` of the same case, coding path and underlying error (EKNetwork users catch
/// `DecodingError`); only its context's `debugDescription` grows. The body's first 64 bytes are shown with the
/// values of secret-looking JSON and form fields hidden, as the logger shows bodies. `localizedDescription` is
/// Foundation's own sentence for every `DecodingError` and cannot be changed: print the error itself.
enum DecodingErrorDetails {
    /// How much of the body the text shows.
    static let bodyPrefixLimit = 64

    /// `error` with the response's status, content type, size and first bytes after its own debug description.
    static func adding(_ head: HTTPResponseHead, body: Data?, to error: DecodingError) -> DecodingError {
        let response = summary(head, body: body ?? Data())
        func grown(_ context: DecodingError.Context) -> DecodingError.Context {
            var text = context.debugDescription
            if !text.isEmpty, !text.hasSuffix(".") { text += "." }
            text += text.isEmpty ? response : " " + response
            return DecodingError.Context(
                codingPath: context.codingPath, debugDescription: text, underlyingError: context.underlyingError
            )
        }
        switch error {
        case let .typeMismatch(type, context): return .typeMismatch(type, grown(context))
        case let .valueNotFound(type, context): return .valueNotFound(type, grown(context))
        case let .keyNotFound(key, context): return .keyNotFound(key, grown(context))
        case let .dataCorrupted(context): return .dataCorrupted(grown(context))
        @unknown default: return error
        }
    }

    /// `The response: status 200, Content-Type "text/html", 28 bytes, starting "<html>…"`, on one line.
    static func summary(_ head: HTTPResponseHead, body: Data) -> String {
        let contentType = head.value(forHeader: "Content-Type").map {
            "Content-Type \"\(HeaderValidation.printable($0))\""
        }
        var text = "The response: status \(head.statusCode), \(contentType ?? "no Content-Type"), "
        guard !body.isEmpty else { return text + "an empty body" }
        text += body.count == 1 ? "1 byte" : "\(body.count) bytes"
        let prefix = LogRedaction.bodyPrefix(body, limit: bodyPrefixLimit)
        if prefix == "<\(body.count) bytes of binary data>" { return text + " of binary data" }
        return text + ", starting \"\(HeaderValidation.printable(prefix))\""
    }
}
