import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPURLResponse {
    /// The header fields as `String` pairs.
    package var stringHeaders: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in allHeaderFields {
            guard let key = key as? String else { continue }
            result[key] = value as? String ?? String(describing: value)
        }
        return result
    }
}

extension [String: String] {
    /// The value of a header whose name matches `name` case-insensitively (URLSession may canonicalise names).
    package func value(forCaseInsensitiveKey name: String) -> String? {
        first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
