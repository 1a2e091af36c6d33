import Pyramid

/// One event loop's memory of whether every tile of an image is for everyone (`AccessControl.isOpen`), each
/// answer kept beside the policy's generation it was given under: the fast path asks the rules once per image and
/// policy, not once per tile. Images are held weakly, so an answer never outlives its image to be read for
/// another one made at the same address. Never shared between loops.
struct OpenImages {
    private struct Entry {
        weak var image: PyramidImage?
        var generation: Int
        var open: Bool
    }

    private var entries: [Entry] = []
    private var next = 0
    /// The entry last answered from: a viewer asks for one image's tiles again and again.
    private var last = 0
    private static let size = 32

    /// Whether every tile of `image` is for everyone under `access`'s rules now; nil while its rule is not worked
    /// out (the routes then decide).
    mutating func isOpen(_ image: PyramidImage, access: AccessControl) -> Bool? {
        let generation = access.generation
        let slot = last < entries.count && entries[last].image === image ? last : entries.firstIndex { $0.image === image }
        if let slot, entries[slot].generation == generation {
            last = slot
            return entries[slot].open
        }
        guard let open = access.isOpen(image) else { return nil }
        let entry = Entry(image: image, generation: generation, open: open)
        if let slot {
            (last, entries[slot]) = (slot, entry)
        } else if entries.count < Self.size {
            last = entries.count
            entries.append(entry)
        } else {
            (last, entries[next]) = (next, entry)
            next = (next + 1) % Self.size
        }
        return open
    }
}
