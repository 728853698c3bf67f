/// What a ``LoopbackServer`` keeps of request bodies.
package enum LoopbackRequestBodyMode: Sendable, Equatable {
    /// The whole body is kept in ``LoopbackRequest/body`` (up to ``LoopbackLimits/maxBodyBytes``),
    /// for exact assertions. The default.
    case buffered
    /// The body is read in pieces and summarised as it arrives (``LoopbackRequest/bodyDigest``:
    /// size, SHA-256, multipart parts), never held: uploads of gigabytes cost the server a few
    /// hundred KiB. ``LoopbackRequest/body`` stays empty, and the limit is
    /// ``LoopbackLimits/maxDigestedBodyBytes`` instead of `maxBodyBytes`.
    case digested
    /// The body is read and only counted (``LoopbackRequest/bodyByteCount``), neither held nor hashed:
    /// the server then costs a `recv` per piece and cannot be what limits a client's upload speed,
    /// which digest mode (SHA-256 at a few hundred MB/s) would be. For benchmarks; there is nothing
    /// to compare, so ``LoopbackResponse/uploadReport(for:status:)`` answers 500 in this mode.
    /// The limit is ``LoopbackLimits/maxDigestedBodyBytes``.
    case counted
}
