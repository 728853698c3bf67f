#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// NetCore's errors read the same through `localizedDescription` as through `description`: without these,
// Foundation words them "The operation could not be completed" and leaves out what failed and why.

extension PluginRetryLimitExceeded: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension UploadSourceError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension CookieError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension UnsupportedConnectionSettingError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension ConnectionSettingError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}
