#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension EventSourceError: LocalizedError {
    /// The same sentence as `description`, so `localizedDescription` names the failure too.
    public var errorDescription: String? { description }
}
