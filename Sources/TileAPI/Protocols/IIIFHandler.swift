import HTTPTransport
import Library
import Pyramid
import TileGeometry

/// IIIF Image API 3.0 at compliance level 2: `info.json`, the base URI redirect, and image requests served
/// from the pyramid level nearest above the requested size through the shared tile path.
struct IIIFHandler: Sendable {
    static let context = "http://iiif.io/api/image/3/context.json"

    let tiles: TileHandler
    let maxZoom: Double
    let library: ImageLibrary

    init(_ services: Services, tiles: TileHandler) {
        self.tiles = tiles
        maxZoom = services.options.maxZoom
        library = services.library
    }

    /// `{scheme}://{host}/iiif/3/{id}` (or `{id}@{version}`) as the client addressed it (X-Forwarded-Proto/Host win
    /// over Host).
    static func serviceID(_ context: RequestContext, id: String, version: String? = nil) -> String {
        context.origin + "/iiif/3/\(URLPath.escape(id))" + (version.map { "@" + $0 } ?? "")
    }

    /// The identifier segment: an image id, or `{id}@{version}` as `/api/images` hands it out. A versioned
    /// identifier names one version of the file for good (its answers are immutable); an old version gets a
    /// `307` to the same request under the current one. Image ids never contain `@`.
    struct Identifier {
        let id: String
        let image: AdmittedImage
        let snapshot: PyramidImage.Snapshot
        /// The version named, when it is the current one.
        let version: String?

        init(_ context: RequestContext) throws {
            let asked = TileURL.withBytes(context.capture("id")) { segment in
                TileURL.iiifIdentifier(segment).version.map { String(decoding: segment[$0], as: UTF8.self) }
            }
            image = try context.admitted()
            id = image.id
            snapshot = try image.snapshot(context)
            guard let asked else {
                version = nil
                return
            }
            guard asked == snapshot.version else {
                let raw = context.request.path.dropFirst("/iiif/3/".count)
                let rest = raw.firstIndex(of: "/").map { String(raw[$0...]) } ?? ""
                throw APIError.staleVersion(location: "/iiif/3/\(URLPath.escape(id))@\(snapshot.version)" + rest)
            }
            version = asked
        }

    }

    func redirect(_ context: RequestContext) throws -> HandlerOutcome {
        let identifier = try Identifier(context)
        let base = Self.serviceID(context, id: identifier.id, version: identifier.version)
        var response = HTTPResponse.text("see \(base)/info.json\n", status: .seeOther)
        response.headers.append(HTTPHeader(name: "Location", value: base + "/info.json"))
        return .response(response)
    }

    func info(_ context: RequestContext) throws -> HandlerOutcome {
        try info(context, Identifier(context))
    }

    private func info(_ context: RequestContext, _ identifier: Identifier) throws -> HandlerOutcome {
        let g = identifier.snapshot.geometry
        let limits = Self.limits(g, maxZoom: maxZoom, identifier.image.limit)
        var sizes = (0 ... g.maxLevel).map { g.levelSize($0) }.filter { max($0.width, $0.height) <= min(2048, max(limits.maxWidth, limits.maxHeight)) }
        // A tiered image seen at its public size: that size itself, the largest whole picture theirs to have.
        if identifier.image.limit.maxScale(width: g.width, height: g.height).map({ $0 < 1 }) ?? false,
           !sizes.contains(where: { $0.width == limits.maxWidth && $0.height == limits.maxHeight }) {
            sizes.append((width: limits.maxWidth, height: limits.maxHeight))
        }
        var features: [JSONValue] = ["mirroring"]
        if maxZoom > 1 { features.append("sizeUpscaling") }
        let document: JSONValue = .object([
            ("@context", .string(Self.context)),
            ("id", .string(Self.serviceID(context, id: identifier.id, version: identifier.version))),
            ("type", "ImageService3"),
            ("protocol", "http://iiif.io/api/image"),
            ("profile", "level2"),
            ("width", .int(g.width)),
            ("height", .int(g.height)),
            ("maxWidth", .int(limits.maxWidth)),
            ("maxHeight", .int(limits.maxHeight)),
            ("maxArea", .int(limits.maxArea)),
            ("tiles", .array([.object([("width", .int(g.tileSize)),
                                       ("scaleFactors", .array((0 ... g.maxLevel).filter { k in
                                           let size = g.levelSize(g.maxLevel - k)
                                           return size.width <= limits.maxWidth && size.height <= limits.maxHeight
                                       }.map { .int(1 << $0) }))])])),
            ("sizes", .array(sizes.map { .object([("width", .int($0.width)), ("height", .int($0.height))]) })),
            ("extraFormats", .array([.string("webp"), .string("avif")])),
            ("extraQualities", .array(["color", "gray", "bitonal"])),
            ("extraFeatures", .array(features)),
        ] + services(context, identifier))
        var response = HTTPResponse.json(document)
        if identifier.version != nil { response.headers.append(VersionCheck.immutable) }
        return .response(response.linkedData(profile: Self.context, for: context.request))
    }

    /// The service's limits; for a tiered image seen by someone who may not have it all, `max` stops at its public
    /// size, which `info.json` advertises (`advertised`) as its maxWidth and maxHeight. A request past it is not
    /// malformed (400) but refused (401 or 403), as one that signing in would answer.
    static func limits(_ g: PyramidGeometry, maxZoom: Double, _ limit: OutputLimit, advertised: Bool = true) -> IIIFRequest.Limits {
        var limits = IIIFRequest.limits(width: g.width, height: g.height, maxZoom: maxZoom)
        if let scale = limit.maxScale(width: g.width, height: g.height) {
            limits.maxScale = scale
            guard advertised else { return limits }
            (limits.maxWidth, limits.maxHeight) = limit.largestSize(width: g.width, height: g.height)
            limits.maxArea = limits.maxWidth * limits.maxHeight
        }
        return limits
    }

    /// IIIF Authorization Flow 2.0's services, for an image not open to everyone.
    func authServices(_ context: RequestContext, id: String) -> [(String, JSONValue)] {
        guard let access = context.access, access.personal else { return [] }
        return [("service", AuthHandler.services(origin: context.origin, id: id, external: access.control.externalSignIn))]
    }

    /// `service` of `info.json`: sign-in where the answer depends on who asks, and the physical dimensions service
    /// where the image's pixel size is known.
    private func services(_ context: RequestContext, _ identifier: Identifier) -> [(String, JSONValue)] {
        var items: [JSONValue] = []
        if case let .array(auth)? = authServices(context, id: identifier.id).first?.1 { items += auth }
        if let scale = PhysicalScale.of(identifier.id, identifier.snapshot, library: library) {
            items.append(PhysicalScale.service(scale, serviceID: Self.serviceID(context, id: identifier.id, version: identifier.version)))
        }
        return items.isEmpty ? [] : [("service", .array(items))]
    }

    static let profileLink = HTTPHeader(name: "Link", value: "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\"")

    /// An image request. One that names exactly one pyramid tile (what tiled viewers send) is that tile, from
    /// the shared cache; anything else is assembled from cached tiles of the nearest level, then transformed.
    func image(_ context: RequestContext) throws -> HandlerOutcome {
        try image(context, Identifier(context))
    }

    private func image(_ context: RequestContext, _ identifier: Identifier) throws -> HandlerOutcome {
        let image = identifier.image, snapshot = identifier.snapshot
        let g = snapshot.geometry
        let request = try IIIFRequest(region: context.capture("region"), size: context.capture("size"),
                                      rotation: context.capture("rotation"), qualityFormat: context.capture("qf"),
                                      imageWidth: g.width, imageHeight: g.height,
                                      limits: Self.limits(g, maxZoom: maxZoom, image.limit, advertised: false))
        if let tile = request.tile(in: g) {
            let lookup = try image.lookup(snapshot, tile: tile, format: request.format)
            return try tiles.answer(lookup, context: context, headers: [Self.profileLink], versioned: identifier.version != nil)
        }
        let cacheControl = identifier.version != nil ? VersionCheck.immutable : tiles.cacheControl
        return .work(on: .render) {
            do {
                if request.isPlain, request.format == .jpeg,
                   let joined = try image.joinedRegion(request.region, outWidth: request.width, outHeight: request.height, in: snapshot) {
                    return .image(.bytes(joined), contentType: request.format.mimeType, headers: [Self.profileLink, cacheControl])
                }
                let plan = RegionPlan(rect: request.region, outWidth: request.width, outHeight: request.height, geometry: g,
                                      channels: snapshot.source.info.channels)
                let output = try image.encodedRegion(plan, transform: request.transform, format: request.format, in: snapshot)
                return .image(output, contentType: request.format.mimeType, headers: [Self.profileLink, cacheControl])
            } catch {
                return APIError.response(for: error)
            }
        }
    }
}
