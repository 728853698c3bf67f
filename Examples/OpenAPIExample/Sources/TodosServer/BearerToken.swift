/// The bearer token of the request being handled. The generator leaves security schemes to middleware, so the
/// `Authorization` header never reaches a handler's input: ``BearerTokenMiddleware`` puts the token here.
package enum BearerToken {
    /// The token after `Bearer `, or `nil` when the request carried none.
    @TaskLocal package static var current: String?
}
