#if !Logging
import NetCore

// What `import NetLogging` offers without the package trait Logging: the module's public names, each unavailable
// with a message that says how to turn the trait on, rather than "extra argument 'swiftLog' in call".

extension NetworkLogger {
    /// Built only with NetKit's package trait `Logging`: see the message.
    @available(
        *, unavailable,
        message: """
            NetworkLogger(swiftLog:) is built only with NetKit's package trait Logging. In your Package.swift, depend \
            on NetKit with the trait: .package(url: "<NetKit's URL>", from: "0.1.0", traits: ["Logging"])
            """
    )
    public init(swiftLog logger: Any, category: String = "network") {
        self.init(subsystem: category)
    }
}
#endif
