#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One exchange of a HAR file: the request, the response and how long each phase took.
public struct HAREntry: Codable, Sendable, Equatable {
    /// When the request started, ISO 8601 with milliseconds (`2026-11-30T10:00:00.000Z`).
    public var startedDateTime: String
    /// The whole exchange's time in milliseconds: the sum of ``timings``' phases that are not -1.
    public var time: Double
    /// The request.
    public var request: HARRequest
    /// The response.
    public var response: HARResponse
    /// What a browser's cache did; NetKit writes an empty object, as the specification allows.
    public var cache: HARCache
    /// How long each phase took.
    public var timings: HARTimings
    /// The server's IP address, when the writer knew it.
    public var serverIPAddress: String?
    /// The connection's identity, when the writer knew it.
    public var connection: String?
    /// A note of the writer's.
    public var comment: String?

    /// Creates an entry.
    public init(
        startedDateTime: String,
        time: Double,
        request: HARRequest,
        response: HARResponse,
        cache: HARCache = HARCache(),
        timings: HARTimings,
        serverIPAddress: String? = nil,
        connection: String? = nil,
        comment: String? = nil
    ) {
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = cache
        self.timings = timings
        self.serverIPAddress = serverIPAddress
        self.connection = connection
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
    }

    /// Reads an entry; the fields a replay does not need (dates, times, cache, timings) may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedDateTime = try container.decodeIfPresent(String.self, forKey: .startedDateTime) ?? ""
        time = try container.decodeIfPresent(Double.self, forKey: .time) ?? 0
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decode(HARResponse.self, forKey: .response)
        cache = try container.decodeIfPresent(HARCache.self, forKey: .cache) ?? HARCache()
        timings = try container.decodeIfPresent(HARTimings.self, forKey: .timings) ?? HARTimings()
        serverIPAddress = try container.decodeIfPresent(String.self, forKey: .serverIPAddress)
        connection = try container.decodeIfPresent(String.self, forKey: .connection)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }

    /// `date` as HAR writes it: ISO 8601, UTC, with milliseconds.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0)!))
    }
}

/// What a browser's cache did for an entry. NetKit records none (its own cache sits above the transport it
/// records), and reads what a browser wrote only to ignore it.
public struct HARCache: Codable, Sendable, Equatable {
    /// A note of the writer's.
    public var comment: String?

    /// An empty cache record.
    public init(comment: String? = nil) {
        self.comment = comment
    }
}
