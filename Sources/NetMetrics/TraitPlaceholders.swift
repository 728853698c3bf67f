#if !Metrics
// What `import NetMetrics` offers without the package trait Metrics: the module's public names, each unavailable
// with a message that says how to turn the trait on.

/// Built only with NetKit's package trait `Metrics`: see the message.
@available(
    *, unavailable,
    message: """
        MetricsPlugin is built only with NetKit's package trait Metrics. In your Package.swift, depend on NetKit with \
        the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["Metrics"])
        """
)
public struct MetricsPlugin: Sendable {
    /// Unavailable: see the type's message.
    public init(factory: Any = (), prefix: String = "netkit") {}
}
#endif
