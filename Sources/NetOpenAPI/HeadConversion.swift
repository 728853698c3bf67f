#if OpenAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import NetCore

/// Moves heads between swift-http-types (what a generated client speaks) and NetKit's own types, field by field:
/// repeated fields stay apart both ways, and every part is checked by NetKit's types as it is set. Pure, tested
/// without I/O.
///
/// Both modules name types `HTTPRequest`-like things, hence the module prefixes.
enum HeadConversion {
    /// NetKit's head for a generated client's request: the client's path (already percent-encoded, query
    /// included) appended to `baseURL`'s path, as swift-openapi-runtime's own transports do.
    /// - Throws: ``OpenAPITransportError`` for a method that is not a token, a base URL without scheme or host, or a
    ///   target or field the wire cannot carry.
    static func head(of request: HTTPTypes.HTTPRequest, baseURL: URL) throws(OpenAPITransportError)
        -> NetCore.HTTPRequestHead
    {
        guard let method = NetCore.HTTPRequestMethod(rawValue: request.method.rawValue) else {
            throw .unsupportedMethod(request.method.rawValue)
        }
        var head: NetCore.HTTPRequestHead
        do {
            head = try NetCore.HTTPRequestHead(method: method, url: baseURL)
        } catch {
            // The one rule the base URL broke, in NetKit's words (which never show its userinfo or query).
            guard case .invalidBaseURL(_, let rule) = error else {
                throw .invalidBaseURL(reason: "it needs a scheme and a host the wire can carry")
            }
            throw .invalidBaseURL(reason: rule.reason)
        }
        if head.query != nil { throw .invalidBaseURL(reason: "it has a query; the client's path brings its own") }
        var base = head.pathWithoutQuery
        while base.hasSuffix("/") { base = base.dropLast() }
        let requestPath = request.path ?? "/"
        let path = base + (requestPath.hasPrefix("/") ? requestPath : "/" + requestPath)
        do {
            try head.setTarget(scheme: head.scheme, authority: head.authority, path: String(path))
        } catch {
            throw .invalidTarget(path: redacted(String(path)))
        }
        for field in request.headerFields where !isFraming(field.name) {
            do {
                try head.headerFields.addValue(field.value, for: field.name.rawName)
            } catch {
                throw .invalidHeader(name: field.name.rawName)
            }
        }
        return head
    }

    /// `path` with its query values hidden, for an error's text.
    static func redacted(_ path: String) -> String {
        guard let question = path.firstIndex(of: "?") else { return path }
        return path[..<question] + "?" + LogRedaction.redactedQuery(String(path[path.index(after: question)...]))
    }

    /// The length a request's `Content-Length` field declares, if it declares one the body should keep to.
    static func declaredLength(of request: HTTPTypes.HTTPRequest) -> Int64? {
        request.headerFields[.contentLength].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Whether a field is framing (`Content-Length`, `Transfer-Encoding`): the body decides those, so that a stale
    /// value in the generated request cannot contradict what is sent.
    static func isFraming(_ name: HTTPField.Name) -> Bool {
        name == .contentLength || name == .transferEncoding
    }

    /// swift-http-types' response for NetKit's head, fields in order (a name swift-http-types refuses is dropped:
    /// NetKit's names are tokens already, so none is).
    static func response(of head: NetCore.HTTPResponseHead) -> HTTPTypes.HTTPResponse {
        var fields = HTTPFields()
        fields.reserveCapacity(head.headerFields.count)
        for field in head.headerFields {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return HTTPTypes.HTTPResponse(
            status: HTTPTypes.HTTPResponse.Status(code: head.statusCode, reasonPhrase: head.reasonPhrase),
            headerFields: fields
        )
    }
}
#endif
