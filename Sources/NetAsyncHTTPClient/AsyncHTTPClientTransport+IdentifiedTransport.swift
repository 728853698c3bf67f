#if AsyncHTTPClient
import NetCore

extension AsyncHTTPClientTransport: IdentifiedTransport {
    /// The client: copies of a transport are one transport to the response cache and the coalescer; transports over
    /// two clients (two proxies or TLS configurations, say) are two.
    package var identifyingObject: AnyObject? { client }
}
#endif
