import POSIXSupport

/// Why an image could not be opened, decoded or encoded. Messages name the file and say what to do.
public enum ImageSourceError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case unknownFormat(path: String, firstBytes: [UInt8])
    case truncated(path: String, format: SourceFormat, atByte: Int64, fileSize: Int64, row: Int, rows: Int)
    case corrupt(path: String, format: SourceFormat, atByte: Int64, message: String)
    case tooLarge(path: String, width: Int, height: Int, limit: Int, pyramid: Bool = false)
    case outOfMemory(path: String, message: String)
    case unsupported(path: String, message: String)
    case regionOutside(path: String, region: PixelRect, width: Int, height: Int, shrink: Int)
    case encodeFailed(format: ImageFormat, message: String)
    /// An encoded tile (a cached or stored WebP) that does not decode.
    case decodeFailed(path: String, format: ImageFormat, message: String)
    /// The file changed while pixels were being made from it (or the pass making them was replaced): ask again.
    case changed(path: String)
    /// The object storage holding the file did not answer (after retries): ask again later.
    case unavailable(path: String, reason: String)

    /// The file the error is about, if any.
    package var path: String? {
        switch self {
        case let .cannotOpen(path, _), let .unknownFormat(path, _), let .truncated(path, _, _, _, _, _), let .corrupt(path, _, _, _),
             let .tooLarge(path, _, _, _, _), let .outOfMemory(path, _), let .unsupported(path, _),
             let .regionOutside(path, _, _, _, _), let .decodeFailed(path, _, _), let .changed(path), let .unavailable(path, _):
            path
        case .encodeFailed: nil
        }
    }

    /// The file itself is at fault (not a Tileserver bug, nor a lack of memory): damaged, not an image, a
    /// variant no decoder reads, or larger than this server allows. Listings show such an image as broken.
    package var isDamage: Bool {
        switch self {
        case .unknownFormat, .truncated, .corrupt, .unsupported, .tooLarge: true
        case .cannotOpen, .outOfMemory, .regionOutside, .encodeFailed, .decodeFailed, .changed, .unavailable: false
        }
    }

    /// The message with the file named by its name alone: what responses say (a server's paths are its own). An
    /// object's `s3://bucket/key` is kept: it names no server path, and says which object to look at.
    public var publicDescription: String {
        guard let path, !path.isEmpty, !path.hasPrefix("s3://") else { return description }
        return description.replacing(path, with: PathText.lastComponent(of: path))
    }

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            return "\(path): cannot open (\(reason))"
        case let .unknownFormat(path, bytes):
            let hex = bytes.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
            let known = "JPEG, PNG, TIFF, JPEG 2000, WebP, HEIF or AVIF"
            if bytes.isEmpty { return "\(path): the file is empty (0 bytes); expected a \(known) image" }
            if let name = SourceFormat.unreadableFormat(bytes) ?? SourceFormat.unreadableFormat(fileName: path) {
                return "\(path): cannot be shown: format not supported (\(name)); convert it to one of \(known)"
            }
            return "\(path): not a \(known) image (starts with \(hex))"
        case let .truncated(path, format, at, size, row, rows):
            let place = rows > 0 ? " after \(row.grouped) of \(rows.grouped) rows" : ""
            let end = at == size ? (place.isEmpty ? ", the end of the file" : ", the end of the file,") : " of \(size.grouped)"
            return "\(path): \(format.name) data ends at byte \(at.grouped)\(end)\(place) (truncated file)"
        case let .corrupt(path, .slide, _, message):
            return "\(path): damaged whole-slide image (OpenSlide: \(message))"
        case let .corrupt(path, format, at, message):
            return "\(path): corrupt \(format.name) data near byte \(at.grouped): \(message)"
        case let .tooLarge(path, w, h, limit, pyramid):
            let (pixels, _) = w.multipliedReportingOverflow(by: h)
            return "\(path): \(w.grouped) × \(h.grouped) is \(pixels.grouped) pixels, over the limit of \(limit.grouped) (raise "
                + (pyramid ? "--max-pyramid-pixels" : "--max-pixels") + " to allow it)"
        case let .outOfMemory(path, message):
            return "\(path): not enough memory to decode (\(message))"
        case let .unsupported(path, message):
            return "\(path): unsupported image variant: \(message)"
        case let .regionOutside(path, region, w, h, shrink):
            return "\(path): region \(region) lies outside the \(w)×\(h) image at shrink \(shrink)"
        case let .encodeFailed(format, message):
            return "cannot encode \(format.rawValue.uppercased()): \(message)"
        case let .decodeFailed(path, format, message):
            return "\(path): cannot decode \(format.rawValue.uppercased()): \(message)"
        case let .changed(path):
            return "\(path) changed while its tiles were being made; ask again"
        case let .unavailable(path, reason):
            return "\(path): object storage is unavailable (\(reason)); ask again later"
        }
    }
}

extension BinaryInteger {
    /// 1048576 → "1,048,576": figures in messages read at a glance.
    var grouped: String {
        let digits = String(self.magnitude)
        var out = ""
        for (n, ch) in digits.enumerated() {
            if n > 0, (digits.count - n) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return self < 0 ? "-" + out : out
    }
}
