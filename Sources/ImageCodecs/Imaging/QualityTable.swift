/// A measured mapping from JPEG quality to another encoder's quality of the same look (`WebPQuality`,
/// `AVIFQuality`): points from 0 to 100, linear between them.
struct QualityTable: Sendable {
    let points: [(jpeg: Int, other: Int)]

    /// The other encoder's quality for JPEG at `quality` (clamped to 0…100).
    func map(_ quality: Int) -> Int {
        let q = max(0, min(100, quality))
        guard let upper = points.firstIndex(where: { $0.jpeg >= q }), upper > 0 else { return q }
        let (a, b) = (points[upper - 1], points[upper])
        return a.other + (q - a.jpeg) * (b.other - a.other) / (b.jpeg - a.jpeg)
    }
}
