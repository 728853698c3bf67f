/// A request method as the seam carries it: any RFC 9110 method token (§9.1), compared as it is spelled (methods are
/// case-sensitive), so that WebDAV's `PROPFIND`, `QUERY`, `PURGE` or `M-SEARCH` can be sent as well as the methods
/// of ``HTTPMethod``.
///
/// The nine methods of RFC 9110 and RFC 5789 are static members (`.get`, `.post`, …), so `request.method == .get`
/// reads as it always has; `HTTPRequestMethod(someHTTPMethod)` converts, and `HTTPRequestMethod(rawValue:)` checks any
/// other token:
///
/// ```swift
/// struct Search: Endpoint {
///     typealias Response = [Item]
///     var path: String { "/items" }
///     var method: HTTPMethod { .post }                                       // what EKNetwork's protocol asks for
///     var requestMethod: HTTPRequestMethod { HTTPRequestMethod(rawValue: "QUERY")! }  // what is sent
/// }
/// ```
public struct HTTPRequestMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method token, as sent.
    public let rawValue: String
    /// The ``HTTPMethod`` of the same name, or `nil` for a method outside it.
    public let knownMethod: HTTPMethod?

    /// The method `rawValue` names, or `nil` when it is not an RFC 9110 token (empty, or holding a space, a
    /// separator such as `(` or `,`, a control character or a byte past ASCII).
    public init?(rawValue: String) {
        guard HeaderValidation.isValidName(rawValue) else { return nil }
        self.rawValue = rawValue
        knownMethod = HTTPMethod(rawValue: rawValue)
    }

    /// One of the methods of ``HTTPMethod``.
    public init(_ method: HTTPMethod) {
        rawValue = method.rawValue
        knownMethod = method
    }

    /// `GET`.
    public static let get = HTTPRequestMethod(.get)
    /// `POST`.
    public static let post = HTTPRequestMethod(.post)
    /// `PUT`.
    public static let put = HTTPRequestMethod(.put)
    /// `DELETE`.
    public static let delete = HTTPRequestMethod(.delete)
    /// `PATCH`.
    public static let patch = HTTPRequestMethod(.patch)
    /// `HEAD`.
    public static let head = HTTPRequestMethod(.head)
    /// `OPTIONS`.
    public static let options = HTTPRequestMethod(.options)
    /// `TRACE`.
    public static let trace = HTTPRequestMethod(.trace)
    /// `CONNECT`.
    public static let connect = HTTPRequestMethod(.connect)

    /// Whether the method only reads (RFC 9110 §9.2.1: `GET`, `HEAD`, `OPTIONS`, `TRACE`). A method NetKit does not
    /// know counts as unsafe: a successful one invalidates what the cache stored for its target.
    public var isSafe: Bool {
        switch knownMethod {
        case .get, .head, .options, .trace: true
        default: false
        }
    }

    /// Whether sending the request twice has the same effect as sending it once (RFC 9110 §9.2.2): the safe methods,
    /// `PUT` and `DELETE`. A method NetKit does not know counts as not idempotent, so it is repeated only when the
    /// request says it may be.
    public var isIdempotent: Bool { knownMethod?.isIdempotent ?? false }

    /// The token.
    public var description: String { rawValue }
}
