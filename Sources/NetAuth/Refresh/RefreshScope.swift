/// Marks the task running one particular refresh of one particular coordinator.
///
/// A refresher may send its own request through the same manager (EKNetwork's `TokenManager` example does);
/// if that request got a 401 and waited for the refresh in flight, it would wait for itself. The mark names the
/// coordinator and the refresh, so a refresh in one manager never switches refresh off for another, and a task
/// the refresher started that outlives the refresh is an ordinary request again.
struct RefreshScope: Hashable, Sendable {
    let coordinator: ObjectIdentifier
    let refresh: Int

    /// The refreshes the current task runs inside.
    @TaskLocal static var current: Set<RefreshScope> = []
}
