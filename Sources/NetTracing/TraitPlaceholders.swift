#if !Tracing
// What `import NetTracing` offers without the package trait Tracing: the module's public names, each unavailable
// with a message that says how to turn the trait on.

/// Built only with NetKit's package trait `Tracing`: see the message.
@available(
    *, unavailable,
    message: """
        TracingPlugin is built only with NetKit's package trait Tracing. In your Package.swift, depend on NetKit with \
        the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["Tracing"])
        """
)
public struct TracingPlugin: Sendable {
    /// Unavailable: see the type's message.
    public init(tracer: Any = (), rules: Any = ()) {}
}

/// Built only with NetKit's package trait `Tracing`: see the message.
@available(
    *, unavailable,
    message: """
        TransportRequestInjector is built only with NetKit's package trait Tracing. In your Package.swift, depend on \
        NetKit with the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["Tracing"])
        """
)
public struct TransportRequestInjector: Sendable {
    /// Unavailable: see the type's message.
    public init() {}
}

/// Built only with NetKit's package trait `Tracing`: see the message.
@available(
    *, unavailable,
    message: """
        RedactedError is built only with NetKit's package trait Tracing. In your Package.swift, depend on NetKit with \
        the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["Tracing"])
        """
)
public struct RedactedError: Error {
    /// Unavailable: see the type's message.
    public init(_ error: any Error) {}
}
#endif
