#if !OpenAPI
// What `import NetOpenAPI` offers without the package trait OpenAPI: the module's public names, each unavailable
// with a message that says how to turn the trait on.

/// Built only with NetKit's package trait `OpenAPI`: see the message.
@available(
    *, unavailable,
    message: """
        NetKitClientTransport is built only with NetKit's package trait OpenAPI. In your Package.swift, depend on \
        NetKit with the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["OpenAPI"])
        """
)
public struct NetKitClientTransport: Sendable {
    /// Unavailable: see the type's message.
    public init(executor: Any, credentials: Any? = nil) {}
}

/// Built only with NetKit's package trait `OpenAPI`: see the message.
@available(
    *, unavailable,
    message: """
        TokenRefreshMiddleware is built only with NetKit's package trait OpenAPI. In your Package.swift, depend on \
        NetKit with the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["OpenAPI"])
        """
)
public struct TokenRefreshMiddleware: Sendable {
    /// Unavailable: see the type's message.
    public init(credentials: Any) {}
}

/// Built only with NetKit's package trait `OpenAPI`: see the message.
@available(
    *, unavailable,
    message: """
        OpenAPITransportError is built only with NetKit's package trait OpenAPI. In your Package.swift, depend on \
        NetKit with the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["OpenAPI"])
        """
)
public enum OpenAPITransportError: Error {}
#endif
