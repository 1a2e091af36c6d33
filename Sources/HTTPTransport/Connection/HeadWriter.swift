/// Bytes written one after another into a fixed buffer its owner keeps, for head lines built without
/// allocating (the framing's start lines, a fast responder's own fields). What would not fit is left out.
package struct HeadWriter {
    private let buffer: UnsafeMutableRawBufferPointer
    package private(set) var count = 0

    package init(into buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// What has been written.
    package var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[..<count]) }

    package mutating func put(_ bytes: UnsafeRawBufferPointer) {
        let n = min(bytes.count, buffer.count - count)
        if n > 0 { (buffer.baseAddress! + count).copyMemory(from: bytes.baseAddress!, byteCount: n) }
        count += n
    }

    package mutating func put(_ text: StaticString) {
        put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }

    /// `value` in decimal (non-negative).
    package mutating func put(decimal value: Int) {
        var n = value, digits = 0, scratch = n
        repeat { digits += 1; scratch /= 10 } while scratch > 0
        guard count + digits <= buffer.count else { return }
        for k in stride(from: digits - 1, through: 0, by: -1) {
            buffer[count + k] = UInt8(48 + n % 10)
            n /= 10
        }
        count += digits
    }
}
