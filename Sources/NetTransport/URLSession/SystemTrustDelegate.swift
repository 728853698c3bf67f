import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Marks a session delegate that leaves server trust to the system: it does not pin certificates or otherwise rely
/// on server-trust challenges (it answers HTTP authentication, say, or only observes).
///
/// On Linux, FoundationNetworking never raises server-trust challenges
/// (`NSURLAuthenticationMethodServerTrust` does not exist there): a delegate that pins certificates would never be
/// asked, and every certificate the system trusts would be accepted. Swift cannot tell whether a delegate implements
/// the challenge method (the protocol's default implementation looks the same), so on Linux
/// ``URLSessionTransport/init(borrowing:bufferLimit:)`` — and `NetworkManager(session:)`, which uses it — refuses to
/// send through a session whose delegate does not adopt this protocol, with ``UnsupportedServerTrust``. Adopt it to
/// say that nothing is lost:
///
/// ```swift
/// final class LoginDelegate: NSObject, URLSessionTaskDelegate, SystemTrustDelegate, Sendable {
///     // answers HTTP Basic challenges; server certificates are the system's to judge
/// }
/// ```
///
/// On Apple platforms it changes nothing: the delegate still gets every challenge the platform raises. To pin
/// certificates on Linux, use `AsyncHTTPClientTransport` (module NetAsyncHTTPClient, package trait
/// `AsyncHTTPClient`) with a NIOSSL `TLSConfiguration` that trusts only your certificates.
public protocol SystemTrustDelegate: URLSessionDelegate {}
