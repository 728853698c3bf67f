/// What a request's road reports besides its decoded value: the response it decoded and, when the caller or a
/// plugin asked for them, the metrics.
///
/// Filled through an `inout` parameter rather than returned in a tuple with the value: a tuple that holds a generic
/// value has its type metadata looked up at run time on every call, and is copied through its value witnesses.
struct RoadReport {
    /// The response the value was decoded from; `nil` until the road has one.
    var received: ReceivedResponse?
    /// The request's metrics; `nil` when nobody asked for them, or until the road ends.
    var metrics: RequestMetrics?
}
