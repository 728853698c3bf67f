extension TransportError {
    /// Where the request went: `host:port` (`[::1]:8080` for an IPv6 address), the host alone when the port is
    /// unknown, or `nil` when the host is.
    public var location: String? {
        guard let host, !host.isEmpty else { return nil }
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }

    /// What a newcomer should check first, in a sentence, for the kinds where the cause is usually outside the
    /// program: `Is a server running and listening on 127.0.0.1:8765? Nothing accepted the connection there.`
    /// `nil` for the kinds the text already explains (a cancellation, say).
    public var hint: String? {
        if let advice { return advice }
        let there = location ?? "the server"
        switch kind {
        case .cannotConnect:
            return "Is a server running and listening on \(there)? Nothing accepted the connection there"
        case .cannotFindHost:
            return "Check the host name in the URL\(host.map { " (\($0))" } ?? "") and this machine's DNS settings"
        case .timedOut:
            return "The server at \(there) did not answer in time: check that it is up, or give the request a "
                + "longer timeout or idleTimeout"
        case .connectionReset, .connectionLost:
            return "The server at \(there) closed the connection; an idempotent request is retried by its "
                + "retry policy"
        case .notConnected:
            return "Check this device's network connection"
        case .badResponse where isPermanent:
            // A response NetKit refused for what it is, well-formed: the detail says why.
            return nil
        case .badResponse:
            return "What came from \(there) is not a well-formed HTTP response: is it the right port, and does it "
                + "speak plain HTTP where the URL says http:?"
        case .tlsFailure:
            return "Check the certificate of \(there) (its host name and dates), this machine's clock and its "
                + "trusted roots"
        case .unsupportedURL:
            return "Use an http: or https: URL"
        default:
            return nil
        }
    }

    /// The error with ``host`` and ``port`` taken from `head` where the transport left them out: the port of the
    /// URL, or its scheme's default.
    package func located(at head: HTTPRequestHead) -> TransportError {
        var located = self
        if located.host?.isEmpty ?? true { located.host = head.host }
        if located.port == nil, located.host == head.host {
            located.port = head.port ?? (head.scheme == "https" ? 443 : head.scheme == "http" ? 80 : nil)
        }
        return located
    }
}
