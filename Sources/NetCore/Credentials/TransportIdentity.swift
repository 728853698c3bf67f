/// Which transport a request goes through, as the response cache and the coalescer tell them apart: two transports
/// may answer one request differently (URLSession's adds the cookies of its own cookie storage inside the transport,
/// where the engine never sees them; another may go through another proxy or present another client certificate),
/// so neither is answered with what the other fetched, nor shares the other's calls.
///
/// - A transport that is an object (a class or an actor: `URLSessionTransport`, `StubTransport`) is itself: copies
///   of an engine over it share, another instance does not; numbered by ``ObjectNumbers``, never confused with a
///   later object at the same address.
/// - NetKit's transports that are values are the object they send through (``IdentifiedTransport``:
///   `SessionProtocolTransport`'s session, `AsyncHTTPClientTransport`'s client).
/// - Any other value is its type: a struct has no identity, so two values of one transport type are one transport.
package struct TransportIdentity: Sendable, Hashable {
    private enum Kind: Hashable {
        case object(UInt64)
        case type(ObjectIdentifier)
    }

    private let kind: Kind

    /// The identity of `transport`, numbered in `numbers`.
    package init(_ transport: any HTTPTransport, numbers: ObjectNumbers = .shared) {
        if let identified = transport as? any IdentifiedTransport, let object = identified.identifyingObject {
            kind = .object(numbers.number(of: object))
        } else if type(of: transport) is AnyObject.Type {
            // A class or an actor: the existential holds the instance itself, not a box.
            kind = .object(numbers.number(of: transport as AnyObject))
        } else {
            // Metatypes live as long as the process: their identifiers are never reused.
            kind = .type(ObjectIdentifier(type(of: transport)))
        }
    }
}
