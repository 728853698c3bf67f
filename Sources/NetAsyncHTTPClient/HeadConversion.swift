#if AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import NIOHTTP1

/// Moves heads between NetKit's types and SwiftNIO's, field by field: no dictionary, no Foundation response in
/// between, repeated fields kept apart both ways. Pure, tested without I/O.
///
/// Both modules name their types `HTTPMethod` and `HTTPResponseHead`, hence the module prefixes.
enum HeadConversion {
    /// The absolute URL AsyncHTTPClient takes, joined from the head's parts (checked when they were set), so
    /// that no Foundation `URL` is built or parsed on the way.
    static func urlString(of head: NetCore.HTTPRequestHead) -> String {
        let (scheme, authority, path) = (head.scheme, head.authority, head.path)
        var url = ""
        url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        url += scheme
        url += "://"
        url += authority
        url += path
        return url
    }

    /// NIO's method for NetKit's: a switch for the known ones, where `HTTPMethod(rawValue:)` would compare strings;
    /// any other token as it is spelled.
    static func method(_ method: NetCore.HTTPRequestMethod) -> NIOHTTP1.HTTPMethod {
        guard let known = method.knownMethod else { return .RAW(value: method.rawValue) }
        return switch known {
        case .get: .GET
        case .post: .POST
        case .put: .PUT
        case .delete: .DELETE
        case .patch: .PATCH
        case .head: .HEAD
        case .options: .OPTIONS
        case .trace: .TRACE
        case .connect: .CONNECT
        }
    }

    /// The request's fields as NIO headers, in order, repeated ones as separate fields; framing fields are left
    /// out because the body decides them (AsyncHTTPClient sets `Content-Length` for a known length and chunked
    /// otherwise), so a stale value in the head cannot contradict the body.
    static func headers(of fields: HTTPHeaderFields) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard !fields.isEmpty else { return headers }
        headers.reserveCapacity(fields.count)
        for field in fields where !isFraming(field.name) {
            headers.add(name: field.name, value: field.value)
        }
        return headers
    }

    /// Whether `name` is `Content-Length` or `Transfer-Encoding` (any case), decided without building a string.
    static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 14: HeaderValidation.namesMatch(name, "Content-Length")
        case 17: HeaderValidation.namesMatch(name, "Transfer-Encoding")
        default: false
        }
    }

    /// The response head NIO parsed, as NetKit's: each field as it came, so every `Set-Cookie` stays a field of
    /// its own. A field NetKit would refuse to send (a parser set to be lenient could let one through) is left
    /// out, so that no ``HTTPHeaderField`` ever holds CR, LF or NUL, even one a plugin copies into a request.
    static func responseHead(status: HTTPResponseStatus, headers: HTTPHeaders) -> NetCore.HTTPResponseHead {
        var fields: [HTTPHeaderField] = []
        fields.reserveCapacity(headers.count)
        for (name, value) in headers where HeaderValidation.isValidName(name) && HeaderValidation.isValidValue(value) {
            fields.append(HTTPHeaderField(uncheckedName: name, value: value))
        }
        return NetCore.HTTPResponseHead(
            statusCode: Int(status.code),
            reasonPhrase: status.reasonPhrase,
            headerFields: HTTPHeaderFields(fields)
        )
    }

    /// The host of an authority, for error messages; computed only when something failed.
    static func host(ofAuthority authority: String) -> String {
        NetCore.HTTPRequestHead.host(ofAuthority: authority)
    }
}
#endif
