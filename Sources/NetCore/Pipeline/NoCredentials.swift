/// No credential and no renewal: the provider of a request sent without an `accessToken`, a `tokenRefresher` or a
/// credential of its own.
///
/// Empty, so an `any CredentialProvider` holds it inline: copying the provider into each stage of the road retains
/// nothing. (A shared boxed provider made every request retain and release the one box several times, an atomic
/// operation on one memory location that every core contends for when many requests run at once.)
package struct NoCredentials: CredentialProvider {
    package init() {}

    package var recovery: (any CredentialRecovery)? { nil }

    package func authorize(_ request: inout TransportRequest) async throws {}
}
