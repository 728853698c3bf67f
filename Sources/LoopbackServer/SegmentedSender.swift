/// Sends bytes in `send` calls of the given sizes, cyclically, continuing the cycle across calls
/// so head and body together follow one pattern.
struct SegmentedSender {
    let socket: Socket
    let sizes: [Int]
    private var index = 0

    init(socket: Socket, sizes: [Int]) {
        self.socket = socket
        self.sizes = sizes
    }

    mutating func send(_ bytes: [UInt8]) -> Bool {
        guard !sizes.isEmpty else { return bytes.isEmpty || socket.sendAll(bytes[...]) }
        var offset = 0
        // Every round sends at least one byte (sizes are positive).
        while offset < bytes.count {
            let size = min(sizes[index % sizes.count], bytes.count - offset)
            guard socket.sendAll(bytes[offset..<(offset + size)]) else { return false }
            offset += size
            index += 1
        }
        return true
    }
}
