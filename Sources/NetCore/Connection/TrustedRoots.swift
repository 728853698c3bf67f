/// The certificate authorities a server's chain must lead to.
public enum TrustedRoots: Sendable, Hashable {
    /// The system's trust store, as the transport's TLS library finds it.
    case system
    /// The system's trust store and these roots too: a private CA beside the public ones.
    case systemAnd([TLSCertificate])
    /// These roots alone: a server whose chain leads anywhere else is refused, however public its CA. Pinning a
    /// private CA this way works on every transport that takes roots, where SPKI pins may not.
    case only([TLSCertificate])
}
