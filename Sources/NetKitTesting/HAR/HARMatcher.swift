import Foundation
import NetCore

/// One way a replayed request must agree with a recorded exchange for the exchange to answer it.
///
/// ``HARReplayTransport`` answers a request with the first recorded exchange that every matcher accepts. By default
/// (``standard``) that is the method and the URL. Pick others, or write your own:
///
/// ```swift
/// let replay = try HARReplayTransport(
///     contentsOf: fixture, matchers: [.method, .path, .headers("Accept"), .body])
/// let tenant = HARMatcher("tenant") { request, entry in
///     request.value(forHeader: "X-Tenant") == entry.request.headers.first { $0.name == "X-Tenant" }?.value
/// }
/// ```
///
/// A value recorded as ``HARRedaction/placeholder`` (a redacted query value, header or JSON field) matches any value:
/// the secret a test sends is never in the fixture to compare with.
public struct HARMatcher: Sendable, CustomStringConvertible {
    /// What the matcher compares, as a mismatch message names it.
    public let description: String
    /// How `request` differs from `entry`, one line per difference; empty when they agree.
    let differences: @Sendable (_ request: StubTransport.RecordedRequest, _ entry: HAREntry) -> [String]

    /// A matcher of your own: `matches` tells whether `request` agrees with the recorded `entry`.
    public init(
        _ description: String,
        _ matches: @escaping @Sendable (_ request: StubTransport.RecordedRequest, _ entry: HAREntry) -> Bool
    ) {
        self.description = description
        self.differences = { request, entry in
            matches(request, entry) ? [] : ["\(description): does not match"]
        }
    }

    private init(
        describedAs description: String,
        differences: @escaping @Sendable (StubTransport.RecordedRequest, HAREntry) -> [String]
    ) {
        self.description = description
        self.differences = differences
    }

    /// The method and the URL: what a replay matches by when you pick nothing.
    public static let standard: [HARMatcher] = [.method, .url]

    /// The same method (compared exactly: methods are case-sensitive).
    public static let method = HARMatcher(describedAs: "method") { request, entry in
        request.method.rawValue == entry.request.method
            ? [] : ["method: recorded \(entry.request.method), sent \(request.method.rawValue)"]
    }

    /// The same URL: scheme, host (any case), port, path, and the same query items in any order (repeated names
    /// kept apart).
    public static let url = HARMatcher(describedAs: "url") { request, entry in
        let recorded = HARURLParts(entry.request.url)
        let sent = HARURLParts(request.url?.absoluteString ?? "")
        return recorded.differences(from: sent, comparingOrigin: true)
    }

    /// The same path and query items, whatever the scheme, host and port: a fixture recorded against one server
    /// replays for a client pointed at another.
    public static let path = HARMatcher(describedAs: "path and query") { request, entry in
        let recorded = HARURLParts(entry.request.url)
        let sent = HARURLParts(request.url?.absoluteString ?? "")
        return recorded.differences(from: sent, comparingOrigin: false)
    }

    /// The same query items, in any order, whatever the rest of the URL.
    public static let query = HARMatcher(describedAs: "query") { request, entry in
        let recorded = HARURLParts(entry.request.url)
        let sent = HARURLParts(request.url?.absoluteString ?? "")
        return recorded.queryDifferences(from: sent)
    }

    /// The same values of these header fields (names in any case; repeated fields joined with `", "`); a field
    /// missing on both sides agrees.
    public static func headers(_ names: String...) -> HARMatcher {
        HARMatcher(describedAs: "headers \(names.joined(separator: ", "))") { request, entry in
            names.compactMap { name in
                let recorded = entry.request.headers.filter { $0.name.lowercased() == name.lowercased() }
                    .map(\.value)
                let recordedValue = recorded.isEmpty ? nil : recorded.joined(separator: ", ")
                let sentValue = request.value(forHeader: name)
                if recordedValue == sentValue || (recordedValue == HARRedaction.placeholder && sentValue != nil) {
                    return nil
                }
                let secret = CredentialFields.standard.containsHeader(name)
                return "header \(name): recorded \(recordedValue.map { "\"\($0)\"" } ?? "none"), sent "
                    + (sentValue.map { secret ? "(a credential)" : "\"\($0)\"" } ?? "none")
            }
        }
    }

    /// The same body: byte for byte, or, for JSON on both sides, the same JSON whatever its members' order and
    /// spacing (a member recorded as ``HARRedaction/placeholder`` agrees with any value).
    public static let body = HARMatcher(describedAs: "body") { request, entry in
        let recorded = entry.request.postData?.inlineData ?? Data()
        if recorded == request.body { return [] }
        if let recordedJSON = try? JSONSerialization.jsonObject(with: recorded, options: [.fragmentsAllowed]),
            let sentJSON = try? JSONSerialization.jsonObject(with: request.body, options: [.fragmentsAllowed]),
            HARJSONComparison.agrees(recorded: recordedJSON, sent: sentJSON)
        {
            return []
        }
        return ["body: recorded \(recorded.count) bytes, sent \(request.body.count) bytes that differ"]
    }
}
