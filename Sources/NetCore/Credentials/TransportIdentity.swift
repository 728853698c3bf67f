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
///
/// What outlives the process is the transport's type alone (``typeName``): a response cache on disk tells
/// transports apart by it, since the next launch has new objects.
package struct TransportIdentity: Sendable, Hashable {
    private enum Kind: Hashable {
        case object(UInt64)
        case type(ObjectIdentifier)
    }

    private let kind: Kind
    /// The transport's type, kept for ``typeName``; the kind alone decides equality.
    private let transportType: any HTTPTransport.Type

    /// The identity of `transport`, numbered in `numbers`.
    package init(_ transport: any HTTPTransport, numbers: ObjectNumbers = .shared) {
        transportType = type(of: transport)
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

    /// The transport's type, fully qualified (`NetTransport.URLSessionTransport`): the same in every launch. Worked
    /// out when asked (it demangles the type's name), by the disk cache alone.
    package var typeName: String { String(reflecting: transportType) }

    package static func == (lhs: TransportIdentity, rhs: TransportIdentity) -> Bool {
        lhs.kind == rhs.kind
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
    }
}
