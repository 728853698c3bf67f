/// How long each phase of an exchange took, in milliseconds; -1 for a phase that did not happen or was not
/// measured (the specification's convention).
public struct HARTimings: Codable, Sendable, Equatable {
    /// Waiting for a connection.
    public var blocked: Double?
    /// Resolving the name.
    public var dns: Double?
    /// Connecting (TLS included).
    public var connect: Double?
    /// Sending the request.
    public var send: Double
    /// Waiting for the first byte of the response.
    public var wait: Double
    /// Receiving the response body.
    public var receive: Double
    /// The TLS handshake (also counted in ``connect``).
    public var ssl: Double?
    /// A note of the writer's.
    public var comment: String?

    /// Creates timings; the optional phases default to -1 (not measured).
    public init(
        blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double = 0, wait: Double = 0,
        receive: Double = 0, ssl: Double? = -1, comment: String? = nil
    ) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey {
        case blocked, dns, connect, send, wait, receive, ssl, comment
    }

    /// Reads timings; a missing required phase reads as 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        blocked = try container.decodeIfPresent(Double.self, forKey: .blocked)
        dns = try container.decodeIfPresent(Double.self, forKey: .dns)
        connect = try container.decodeIfPresent(Double.self, forKey: .connect)
        send = try container.decodeIfPresent(Double.self, forKey: .send) ?? 0
        wait = try container.decodeIfPresent(Double.self, forKey: .wait) ?? 0
        receive = try container.decodeIfPresent(Double.self, forKey: .receive) ?? 0
        ssl = try container.decodeIfPresent(Double.self, forKey: .ssl)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }

    /// The sum of the phases that happened, what ``HAREntry/time`` holds (``ssl`` is part of ``connect``).
    public var total: Double {
        [blocked, dns, connect, send, wait, receive].reduce(0) { sum, phase in
            guard let phase, phase >= 0 else { return sum }
            return sum + phase
        }
    }
}
