import HTTPTransport
import Library

/// `/api/images?q=…&sort=name|taken|added&order=asc|desc`: images found by the words their files carry (name,
/// title, caption, keywords, creators) across the library or below `folder`, or one folder's images in another
/// order; a page at a time (`limit`, `offset` from the `next` URL), as listings are. Runs on the I/O pool.
extension ImageAPIHandler {
    func search(_ context: RequestContext) throws -> HandlerOutcome {
        let parameters = context.path.query
        let query: SearchQuery
        do { query = try SearchQuery(q: parameters["q"], sort: parameters["sort"], order: parameters["order"]) } catch {
            throw APIError.badRequest(error.description)
        }
        let limit = try context.integer("limit", 1 ... Self.maxLimit, default: Self.defaultLimit)
        let offset = try context.integer("offset", 0 ... Int(Int32.max), default: 0)
        let folder = parameters["folder"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        let access = context.access
        if let folder, !(access?.sees(folder: folder) ?? true) { try refuse(folder: folder, context) }
        // Words find only what the one asking may see: a locked image's metadata is not searched for them.
        let admits: (String) -> SearchAdmission = { id in
            switch access?.decision(for: id) {
            case .hidden?: .left
            case .refused?: query.words.isEmpty ? .byName : .left
            case .full?, .limited?: .shown
            case nil: access == nil ? .shown : .left
            }
        }
        guard let found = library.search(query, folder: folder, admits: admits) else { try refuse(folder: folder ?? "", context) }
        var members: [(String, JSONValue)] = [
            ("query", .string(query.words.joined(separator: " "))), ("sort", .string(query.sort.rawValue)),
            ("order", .string(query.ascending ? "asc" : "desc")), ("total", .int(found.count)),
        ]
        members.append(("indexing", indexing(access)))
        if let folder, query.words.isEmpty, let page = library.page(folder: folder, limit: 0) {
            members += folderFields(folder, page, access)
        }
        let end = min(found.count, offset + limit)
        let shown = offset < end ? found[offset ..< end] : []
        members.append(("images", .array(shown.map { image in
            switch access?.decision(for: image.id) {
            case .refused?, .hidden?: locked(image, note: access?.refusalNote(for: image.id, name: image.name))
            case let .limited(maxSize)?: listed(image, maxSize: maxSize, access)
            case .full?, nil: listed(image, access)
            }
        })))
        if end < found.count {
            let next = URLPath.replacing("offset", with: String(end), in: context.request.query)
            members.append(("next", .string("/api/images?" + (parameters["offset"] == nil ? next + "&offset=\(end)" : next))))
        }
        members += access?.listingFields ?? []
        return .response(HTTPResponse.json(.object(members)).tagged().conditional(on: context.request))
    }

    /// A folder that is not there, or not to this identity: 301 to today's path where it was renamed (and is theirs
    /// to see), as a plain listing answers; else 404.
    func refuse(folder: String, _ context: RequestContext) throws -> Never {
        if let new = library.renamedFolder(folder), context.access?.sees(folder: new) ?? true {
            throw APIError.renamed(location: "/api/images?" + URLPath.replacing("folder", with: new, in: context.request.query))
        }
        throw APIError.notFound("no folder '\(folder)'")
    }

    /// How far the search index has come. Under access rules the counts are of the images this identity may know
    /// of (all of them indexed once it is complete; none said before), so they tell nothing of hidden ones.
    func indexing(_ access: AccessView?) -> JSONValue {
        let status = library.search.status
        guard let access, access.control.restricts else {
            return .object([("indexed", .int(status.indexed)), ("total", .int(status.total)), ("complete", .bool(status.complete))])
        }
        let total = access.count("")
        return .object([("indexed", .int(status.complete ? total : 0)), ("total", .int(total)), ("complete", .bool(status.complete))])
    }
}
