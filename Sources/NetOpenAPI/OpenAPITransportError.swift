#if OpenAPI
/// Why ``NetKitClientTransport`` could not send a generated client's request: thrown before anything is sent.
///
/// Its text names what failed and why, and never a query value.
public enum OpenAPITransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The method is not one NetKit sends (NetKit sends the eight of RFC 9110 and `PATCH`).
    case unsupportedMethod(String)
    /// The client's `serverURL` cannot be a base: no scheme or host, characters the wire cannot carry, or a query.
    case invalidBaseURL(reason: String)
    /// The base URL's path and the operation's path together are not a target the wire can carry (query values
    /// hidden).
    case invalidTarget(path: String)
    /// A header field's name or value cannot be sent (CR, LF or NUL, or a name that is not a token).
    case invalidHeader(name: String)
    /// The server answered with a status swift-http-types cannot represent.
    case invalidStatus(Int)

    /// What failed and why.
    public var description: String {
        switch self {
        case .unsupportedMethod(let method): "The method \"\(method)\" is not one NetKit can send"
        case .invalidBaseURL(let reason): "The server URL cannot be used as a base: \(reason)"
        case .invalidTarget(let path):
            "The request target \"\(path)\" cannot be sent: it has characters the wire cannot carry"
        case .invalidHeader(let name):
            "The header field \"\(name)\" cannot be sent: its name or value has CR, LF, NUL or characters a name cannot have"
        case .invalidStatus(let code): "The server answered with status \(code), outside 0...999"
        }
    }
}
#endif
