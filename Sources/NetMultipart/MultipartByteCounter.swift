/// A sink that only counts, so the body length can be known before (or without) building it.
struct MultipartByteCounter: MultipartByteSink {
    private(set) var count = 0

    mutating func write(_ byte: UInt8) {
        count += 1
    }

    mutating func write(_ bytes: some Collection<UInt8>) {
        count += bytes.count
    }
}
