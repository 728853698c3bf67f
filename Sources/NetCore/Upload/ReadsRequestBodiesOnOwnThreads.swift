/// A transport that reads a request body's streams on threads of its own, where a read may wait for bytes that are
/// still being produced without stalling any other transfer (AsyncHTTPClientTransport reads them on NIO's
/// blocking-I/O pool).
///
/// A bridge that produces a body while the request is sent (NetOpenAPI's transport) streams it only to such a
/// transport. Any other, URLSession above all, whose reads run on one work queue that every session of a Linux
/// process shares, gets the body gathered first: in memory up to a bound, in a temporary file beyond it. A marker
/// of the package's own transports, not of the public seam: a transport that does not conform is only ever given
/// bodies that are already whole, which is always safe.
package protocol ReadsRequestBodiesOnOwnThreads: HTTPTransport {}
