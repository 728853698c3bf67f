/// A transport that is a value wrapping the object it sends through (a session, a client): it is told apart by that
/// object (``TransportIdentity``), since the value itself has no identity.
///
/// NetKit's own value-typed transports conform; a transport of someone else's that is a struct is told apart by its
/// type alone.
package protocol IdentifiedTransport: HTTPTransport {
    /// The object that makes this transport the one it is; `nil` when it wraps none (a session that is a value).
    var identifyingObject: AnyObject? { get }
}
