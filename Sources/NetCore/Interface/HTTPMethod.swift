/// The HTTP methods a `NetworkRequest` can use.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    /// `GET`: read a resource.
    case get = "GET"
    /// `POST`: submit data; not idempotent.
    case post = "POST"
    /// `PUT`: replace a resource.
    case put = "PUT"
    /// `DELETE`: remove a resource.
    case delete = "DELETE"
    /// `PATCH`: partially modify a resource; not idempotent.
    case patch = "PATCH"
    /// `HEAD`: like `GET` without a response body.
    case head = "HEAD"
    /// `OPTIONS`: ask which communication options a resource supports.
    case options = "OPTIONS"
    /// `TRACE`: loop the request back.
    case trace = "TRACE"
    /// `CONNECT`: open a tunnel through a proxy.
    case connect = "CONNECT"

    /// Whether sending the request twice has the same effect as sending it once (RFC 9110 §9.2.2).
    ///
    /// Retry decisions consult this so that a `POST` or `PATCH` is repeated only when the caller asked for it.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: true
        case .post, .patch, .connect: false
        }
    }
}
