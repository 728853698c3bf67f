/// What a ``LoopbackServer`` keeps of request bodies.
public enum LoopbackRequestBodyMode: Sendable, Equatable {
    /// The whole body is kept in ``LoopbackRequest/body`` (up to ``LoopbackLimits/maxBodyBytes``),
    /// for exact assertions. The default.
    case buffered
    /// The body is read in pieces and summarised as it arrives (``LoopbackRequest/bodyDigest``:
    /// size, SHA-256, multipart parts), never held: uploads of gigabytes cost the server a few
    /// hundred KiB. ``LoopbackRequest/body`` stays empty, and the limit is
    /// ``LoopbackLimits/maxDigestedBodyBytes`` instead of `maxBodyBytes`.
    case digested
}
