import HTTPTransport
@testable import TileAPI

/// Entry points the fuzz targets call: the server's own parsers, from its libraries.
public enum ServerParsers {
    /// The HTTP request head parser over `bytes`, then every request it yields, as the event loop feeds it.
    public static func parseRequests(_ bytes: UnsafeRawBufferPointer) {
        let parser = HTTPParser()
        var offset = 0
        while offset < bytes.count {
            switch parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .incomplete, .failure: return
            case let .request(request, consumed):
                precondition(consumed > 0 && consumed <= bytes.count - offset, "consumed \(consumed) of \(bytes.count - offset)")
                offset += consumed
                _ = try? RequestPath(request)
            }
        }
    }

    /// A request target through path decoding, then its segments as a tile address and as a IIIF request.
    public static func parseTarget(_ target: String) {
        let request = HTTPRequest(method: "GET", target: target, versionMinor: 1, headers: [], keepAlive: true)
        guard let path = try? RequestPath(request) else { return }
        let s = path.segments
        for (index, segment) in s.enumerated() {
            precondition(segment != "." && segment != ".." && !segment.utf8.contains(0), "segment \(segment) passed")
            let parts = segment.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            precondition(path.slashed.contains(index) == (parts.count > 1), "slashed marks exactly the segments with a '/'")
            precondition(parts.count == 1 || !parts.contains(where: RequestPath.isDotPart),
                         "an identifier with encoded slashes hides an empty, '.' or '..' part: \(segment)")
        }
        if s.count >= 3 {
            _ = try? TilePath.parse(z: s[s.count - 3], x: s[s.count - 2], y: s[s.count - 1])
        }
        if s.count >= 4 {
            for (width, height) in [(20000, 20000), (1, 1), (9024, 3)] {
                let limits = IIIFRequest.limits(width: width, height: height, maxZoom: 4)
                if let parsed = try? IIIFRequest(region: s[s.count - 4], size: s[s.count - 3], rotation: s[s.count - 2],
                                                 qualityFormat: s[s.count - 1], imageWidth: width, imageHeight: height, limits: limits) {
                    precondition(parsed.width >= 1 && parsed.height >= 1 && parsed.width * parsed.height <= limits.maxArea,
                                 "IIIF size \(parsed.width)×\\(parsed.height) escapes the limits")
                    precondition(parsed.region.fits(width: width, height: height), "IIIF region outside the image")
                }
            }
        }
    }
}
