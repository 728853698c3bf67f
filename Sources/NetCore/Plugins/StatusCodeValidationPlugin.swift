#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Accepts only the statuses you name, failing any other response with an ``HTTPError`` before NetKit judges
/// it (SmartNetwork's `StatusCode`): narrower than NetKit's own "any 2xx", for endpoints where a 203 or a 204
/// means something went wrong.
///
/// ```swift
/// var plugins: [any Plugin] { [StatusCodeValidationPlugin(accepting: [200, 201])] }
/// ```
public struct StatusCodeValidationPlugin: Plugin {
    /// The statuses that pass.
    public let acceptable: Set<Int>

    /// Accepts the statuses in `acceptable`.
    public init(accepting acceptable: Set<Int>) {
        self.acceptable = acceptable
    }

    /// Accepts the statuses in `range`.
    public init(accepting range: ClosedRange<Int>) {
        self.acceptable = Set(range)
    }

    /// Throws ``HTTPError`` for any other status; a 401 is left to the credential's renewal.
    public func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
        -> PluginVerdict
    {
        guard !acceptable.contains(response.statusCode), response.statusCode != 401 else { return .accept }
        throw HTTPError(
            statusCode: response.statusCode, data: response.body ?? Data(), headers: response.headers,
            isTruncated: response.isBodyTruncated)
    }
}
