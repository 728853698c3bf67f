#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded` bodies and query strings from name/value pairs.
package enum FormURLEncoding {
    /// `name=value` pairs joined by `&`, sorted by name (then value) so equal inputs give equal bytes;
    /// every byte outside RFC 3986's unreserved set is percent-encoded, so `+ & =` and space survive the trip.
    package static func encode(_ fields: [String: String]) -> String {
        fields.sorted { ($0.key, $0.value) < ($1.key, $1.value) }
            .map { "\(PercentEncoding.encodeComponent($0.key))=\(PercentEncoding.encodeComponent($0.value))" }
            .joined(separator: "&")
    }

    /// `name=value` pairs in the order given, a name repeated as often as it comes (`tag=a&tag=b`,
    /// `category[]=a&category[]=b`), an item without a value as its name alone; each byte encoded as for a
    /// dictionary of fields.
    package static func encode(_ items: [URLQueryItem]) -> String {
        RequestURLBuilder.encode(items)
    }
}
