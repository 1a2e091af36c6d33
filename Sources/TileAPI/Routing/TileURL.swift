import ImageCodecs
import TileGeometry

/// The grammar of tile URLs' segments, on bytes: the one reading of a tile address (`{z}/{x}/{y}[.ext]`), a
/// DeepZoom tile name (`{id}_files` and `{x}_{y}[.ext]`), and the decimals in them. The routes hand it their
/// decoded segments (`TilePath`, `DeepZoomHandler`), the fast path the bytes of the request target in place
/// (`TileTarget`); IIIF's segments are `IIIFParameters`'. Splitting a target into segments is each caller's: the
/// routes decode every escape (`RequestPath`), the fast path takes only targets whose segments need none.
enum TileURL {
    /// Why a tile address is not one.
    enum Refusal: Error, Equatable {
        /// The extension (these bytes of the last segment) names no tile format.
        case format(Range<Int>)
        /// A level, column or row is not a decimal of 1 to 9 digits.
        case numbers
    }

    /// `{z}`, `{x}` and `{y}[.ext]` (the extension any case of `jpg`, `jpeg`, `png`, `webp`, `avif`; nil when there
    /// is none). Each is a buffer of its own (or a rebased slice of one).
    static func address(z: UnsafeRawBufferPointer, x: UnsafeRawBufferPointer, y: UnsafeRawBufferPointer)
        -> Result<(TileCoordinate, ImageFormat?), Refusal> {
        var row = y.indices
        var format: ImageFormat?
        if let dot = y.lastIndex(of: UInt8(ascii: ".")) {
            let suffix = dot + 1 ..< y.endIndex
            guard let named = ImageFormat(extensionBytes: UnsafeRawBufferPointer(rebasing: y[suffix])) else { return .failure(.format(suffix)) }
            format = named
            row = y.startIndex ..< dot
        }
        guard let level = number(z), let column = number(x), let line = number(UnsafeRawBufferPointer(rebasing: y[row])) else {
            return .failure(.numbers)
        }
        return .success((TileCoordinate(level: level, x: column, y: line), format))
    }

    /// The id's bytes in a DeepZoom tile folder's segment (`{id}_files`), or nil when it is not one.
    static func deepZoomID(_ files: UnsafeRawBufferPointer) -> Range<Int>? {
        let suffix = "_files".utf8
        guard files.count > suffix.count, files.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        return files.startIndex ..< files.endIndex - suffix.count
    }

    /// A DeepZoom tile name `{x}_{y}[.ext]` split at its first `_` into the bytes of `{x}` and of `{y}[.ext]`.
    static func deepZoomName(_ name: UnsafeRawBufferPointer) -> (x: Range<Int>, y: Range<Int>)? {
        guard let underscore = name.firstIndex(of: UInt8(ascii: "_")) else { return nil }
        return (name.startIndex ..< underscore, underscore + 1 ..< name.endIndex)
    }

    /// An IIIF identifier segment, `{id}` or `{id}@{version}`, split at its last `@` (ids never hold one).
    static func iiifIdentifier(_ segment: UnsafeRawBufferPointer) -> (id: Range<Int>, version: Range<Int>?) {
        guard let at = segment.lastIndex(of: UInt8(ascii: "@")) else { return (segment.indices, nil) }
        return (segment.startIndex ..< at, at + 1 ..< segment.endIndex)
    }

    /// The id in a DeepZoom descriptor's name, `{id}.dzi`, or nil when it is not one.
    static func descriptorID(_ name: UnsafeRawBufferPointer) -> Range<Int>? {
        let suffix = ".dzi".utf8
        guard name.count > suffix.count, name.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        return name.startIndex ..< name.endIndex - suffix.count
    }

    /// A non-negative decimal of 1 to 9 digits (leading zeros allowed), or nil: every whole number in a tile URL.
    static func number(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var n = 0
        for c in bytes {
            guard c >= 48 && c <= 57 else { return nil }
            n = n * 10 + Int(c - 48)
        }
        return n
    }

    /// A non-negative decimal with at most one point (`12`, `12.5`, `.5`), as IIIF writes percentages and
    /// degrees, or nil.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard bytes.contains(where: { $0 >= 48 && $0 <= 57 }), bytes.count(where: { $0 == UInt8(ascii: ".") }) <= 1,
              bytes.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// `body` over the bytes of `text` (a route's decoded capture).
    static func withBytes<T>(_ text: String, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        var text = text
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
