#if !AsyncHTTPClient
// What `import NetAsyncHTTPClient` offers without the package trait AsyncHTTPClient: the module's public names, each
// unavailable with a message that says how to turn the trait on, rather than an empty module and "cannot find
// 'AsyncHTTPClientTransport' in scope".

/// Built only with NetKit's package trait `AsyncHTTPClient`: see the message.
@available(
    *, unavailable,
    message: """
        AsyncHTTPClientTransport is built only with NetKit's package trait AsyncHTTPClient. In your Package.swift, \
        depend on NetKit with the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["AsyncHTTPClient"])
        """
)
public struct AsyncHTTPClientTransport: Sendable {
    /// Unavailable: see the type's message.
    public init(configuration: Any = (), eventLoopGroup: Any = ()) {}
    /// Unavailable: see the type's message.
    public init(client: Any) {}
    /// Unavailable: see the type's message.
    public static var defaultConfiguration: Any { () }
    /// Unavailable: see the type's message.
    public static var defaultDecompressionRatio: Int { 0 }
}
#endif
