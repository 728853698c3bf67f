/// NetKit's version, as sent in the User-Agent.
public enum NetKitVersion {
    /// The current version.
    public static let current = "0.2.0"
}
