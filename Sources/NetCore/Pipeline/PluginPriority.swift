/// Where a plugin runs among the others: a higher value runs first in every hook.
public struct PluginPriority: RawRepresentable, Comparable, Hashable, Sendable, ExpressibleByIntegerLiteral {
    /// The value; any integer.
    public var rawValue: Int

    /// Creates a priority.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Creates a priority from a literal.
    public init(integerLiteral value: Int) {
        self.rawValue = value
    }

    /// Runs before everything else: request IDs, signatures that later plugins must see.
    public static let high: PluginPriority = 1000
    /// The default.
    public static let normal: PluginPriority = 0
    /// Runs after everything else: logging, which should see the request as the others left it.
    public static let low: PluginPriority = -1000

    /// Orders by value.
    public static func < (lhs: PluginPriority, rhs: PluginPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
