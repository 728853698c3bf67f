import NetCore

extension ByteStreamTransport: IdentifiedTransport {
    /// The session, when it is an object: two transports over one session are one transport to the response cache
    /// and the coalescer; over two sessions, two.
    package var identifyingObject: AnyObject? {
        type(of: session) is AnyObject.Type ? session as AnyObject : nil
    }
}
