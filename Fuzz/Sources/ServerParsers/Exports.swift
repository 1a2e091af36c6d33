@testable import HTTPTransport
@testable import Pyramid
@testable import ImageCodecs
@testable import ImageValues
@testable import TileGeometry
@testable import TileAPI
@testable import Library
@testable import ObjectStorage
@testable import POSIXSupport

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
                let window = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                guard case let .head(head) = parser.scan(window), head.length == consumed else { preconditionFailure("scan and parse disagree") }
                checkFastTarget(UnsafeRawBufferPointer(rebasing: window[head.target]), request)
                offset += consumed
                _ = try? RequestPath(request)
            }
        }
    }

    /// A request target through path decoding, then its segments as a thumbnail name, a tile address and a IIIF
    /// request.
    public static func parseTarget(_ target: String) {
        let request = HTTPRequest(method: "GET", target: target, versionMinor: 1, headers: [], keepAlive: true)
        Array(target.utf8).withUnsafeBytes { checkFastTarget($0, request) }
        guard let path = try? RequestPath(request) else { return }
        let s = path.segments
        for (index, segment) in s.enumerated() {
            precondition(segment != "." && segment != ".." && !segment.utf8.contains(0), "segment \(segment) passed")
            let parts = segment.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            precondition(path.slashed.contains(index) == (parts.count > 1), "slashed marks exactly the segments with a '/'")
            precondition(parts.count == 1 || !parts.contains(where: RequestPath.isDotPart),
                         "an identifier with encoded slashes hides an empty, '.' or '..' part: \(segment)")
        }
        if let last = s.last { _ = try? TilePath.thumbnail(last) }
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

    /// What the fast path takes as a tile URL, the routes must take as the same tile: same image id, address,
    /// format and version, and for IIIF the same tile of every geometry tried (the routes being the reference, as
    /// they answer everything the fast path declines).
    static func checkFastTarget(_ bytes: UnsafeRawBufferPointer, _ request: HTTPRequest) {
        guard let target = TileTarget(bytes) else { return }
        // An id whose escapes do not decode to UTF-8 names no image: the fast path's lookup declines it
        // (`CachedTileReader.decodedID`), and the routes refuse the path.
        if let range = target.id, CachedTileReader.decodedID(UnsafeRawBufferPointer(rebasing: bytes[range])) == nil { return }
        guard let path = try? RequestPath(request) else { preconditionFailure("fast path took a target the routes refuse: \(request.target)") }
        let s = path.segments
        let id = target.id.map { CachedTileReader.decodedID(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
        let version = target.version.map { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        if let iiif = target.iiif {
            guard s.count == 7, s[0] == "iiif", s[1] == "3" else { preconditionFailure("fast path took a target no IIIF route takes: \(request.target)") }
            precondition(id == RouteAccess.id(s[2], .versioned), "IIIF id of \(request.target)")
            let routeVersion = s[2].lastIndex(of: "@").map { String(s[2][s[2].index(after: $0)...]) }
            precondition(version == routeVersion && path.query.isEmpty, "IIIF version of \(request.target)")
            precondition(path.slashed.isSubset(of: [2]), "encoded slashes outside the id in \(request.target)")
            for (width, height, tileSize) in [(20000, 20000, 256), (3996, 2582, 256), (300, 200, 256), (1, 1, 256), (9024, 3, 512), (1000, 1000, 100)] {
                let g = PyramidGeometry(width: width, height: height, tileSize: tileSize)
                let fast = TileTarget.tile(iiif, in: g)
                for zoom in [1.0, 4.0] {
                    let limits = IIIFRequest.limits(width: width, height: height, maxZoom: zoom)
                    let routes = try? IIIFRequest(region: s[3], size: s[4], rotation: s[5], qualityFormat: s[6],
                                                  imageWidth: width, imageHeight: height, limits: limits)
                    if let fast {
                        precondition(routes?.tile(in: g) == fast && routes?.format == target.format,
                                     "IIIF \(request.target) is tile \(fast) to the fast path, \(String(describing: routes?.tile(in: g))) to the routes")
                    }
                }
            }
            return
        }
        let address: (TileCoordinate, ImageFormat)?
        switch s.count {
        case 4 where s[0] == "tiles":
            precondition(id == nil, "an id for /tiles")
            address = try? TilePath.parse(z: s[1], x: s[2], y: s[3], plain: .webp)
        case 6 where s[0] == "images" && s[2] == "tiles":
            precondition(id == s[1], "id \(String(describing: id)) against \(s[1])")
            address = try? TilePath.parse(z: s[3], x: s[4], y: s[5], plain: .webp)
        case 4 where s[0] == "images" && s[1].hasSuffix("_files"):
            precondition(id == String(s[1].dropLast(6)), "DeepZoom id")
            let xy = s[3].split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
            address = xy.count == 2 ? try? TilePath.parse(z: s[2], x: String(xy[0]), y: String(xy[1]), plain: .webp) : nil
        default:
            preconditionFailure("fast path took a target no tile route takes: \(request.target)")
        }
        guard let address else { preconditionFailure("the routes refuse the address of \(request.target)") }
        precondition(address.0 == target.tile && address.1 == (target.format ?? .webp), "address of \(request.target)")
        precondition(path.slashed.isSubset(of: [1]), "encoded slashes outside the id in \(request.target)")
        precondition(version == path.query["v"] && (version == nil) == path.query.isEmpty, "version of \(request.target)")
    }

    /// Access control's parsers. The first byte picks one; the rest is its input. Each must answer without a crash
    /// or a hang, and what it accepts must hold together: a verified token is exactly what signing its fields
    /// gives; a policy's rules answer every folder; cookies have names.
    /// Object storage's parsers, chosen by the first byte: a ListObjectsV2 page, an `~/.aws` file, a date, a
    /// location; 0xFF a kept structure, 0xFE a bundle of them.
    public static func parseObjectStorage(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let text = String(decoding: rest, as: UTF8.self)
        if selector == 0xFF {   // a master's kept structure, as the shared tile store hands it back
            let version = ObjectVersion(size: 1 << 20, tag: "\"etag\"", stamp: FileStamp(size: 1 << 20, modified: 0))
            if let structure = ObjectStructures.decode(rest, version: version) {
                precondition(ObjectStructures.encode(structure, tag: version.tag) == rest, "a structure that does not read back")
                var out = [UInt8](repeating: 0, count: 64)
                for offset in stride(from: Int64(0), to: 1 << 20, by: 4093) { _ = structure.copy(into: &out, count: 64, at: offset) }
            }
            return
        }
        if selector == 0xFE {   // a bundle of structures a stopping server left in the shared tile store
            if let entries = ObjectStructures.decodeBundle(rest) {
                let again = entries.map { (path: $0.path, structure: ObjectStructures.encode($0.structure, tag: $0.tag)) }
                precondition(ObjectStructures.encodeBundle(again) == rest, "a bundle that does not read back")
            }
            return
        }
        switch selector % 4 {
        case 0:
            if let page = try? ObjectListing(xml: rest) {
                for entry in page.entries { precondition(entry.size >= 0, "a negative size") }
            }
        case 1:
            let file = AWSProfileFile(text: text, isConfig: selector & 4 != 0)
            _ = file.value("aws_access_key_id", profile: "default")
        case 2:
            _ = HTTPDate.nanoseconds(text)
        default:
            if let location = S3Location(text) {
                precondition(S3Location(location.description) == location, "a location that does not read back")
                _ = S3Configuration(endpoint: "http://127.0.0.1:1", region: "r", addressing: .virtual, accessKey: nil, secretKey: nil)
                    .url(bucket: location.bucket, key: location.prefix, query: "")
            }
        }
    }

    public static func parseAccess(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let text = String(decoding: rest, as: UTF8.self)
        switch selector % 5 {
        case 0:
            if let policy = try? AccessPolicy.parse(text) {
                for path in ["", "works", "Works/a", "staff/x/y", "drafts", "é/É"] + policy.rules.keys.map { $0.joined(separator: "/") } {
                    let rule = policy.rule(forFolder: path)
                    precondition(rule.view != .public || rule.maxPublicSize != nil || rule.groups.isEmpty, "an open rule with groups")
                    _ = rule.strictest(.open)
                }
            }
        case 1:
            let key = Array(repeating: UInt8(7), count: 32)
            if let token = ShareToken.verify(text, key: key) {
                precondition(token.signed(with: key) == text, "a verified token is not its own signature: \(text)")
            }
            let made = ShareToken(id: "fuzz", expires: rest.count, kind: rest.count % 2 == 0 ? .image : .folder, path: text).signed(with: key)
            precondition(ShareToken.verify(made, key: key)?.path == text || made.utf8.count > ShareToken.maxLength, "a made token does not verify")
        case 2:
            if let value = rest.withUnsafeBytes({ FormFields.cookie("tileserver_session", in: $0) }) {
                precondition(!value.utf8.contains(UInt8(ascii: ";")), "a cookie value runs past its pair: \(text)")
            }
            _ = FormFields.form(rest)
        case 3:
            _ = try? UserTable.parse(text)
        default:
            if let range = AddressRange(text) { _ = range.contains("127.0.0.1"); _ = range.contains("::1") }
            _ = AddressRange.list(text)
        }
    }
}
