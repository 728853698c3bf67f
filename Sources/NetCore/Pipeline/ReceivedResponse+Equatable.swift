extension ReceivedResponse: Equatable {
    /// Whether two responses have the same head, body (and truncation) and answering URL, however each learnt
    /// its URL.
    public static func == (lhs: ReceivedResponse, rhs: ReceivedResponse) -> Bool {
        lhs.head == rhs.head && lhs.body == rhs.body && lhs.isBodyTruncated == rhs.isBodyTruncated && lhs.url == rhs.url
    }
}
