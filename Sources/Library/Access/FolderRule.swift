/// Who may see the images of one folder, as an access file's table says; or the combination of several
/// (`strictest`), for a file that more than one path reaches.
package struct FolderRule: Equatable, Sendable {
    package enum View: Int, Comparable, Sendable {
        /// Anyone (up to `maxPublicSize`, when set).
        case `public`
        /// Only the groups; others learn the image exists (its name, with a lock).
        case restricted
        /// Only the groups; to anyone else it is as missing as a file that is not there.
        case hidden

        package static func < (a: View, b: View) -> Bool { a.rawValue < b.rawValue }
    }

    package var view: View
    /// Each list must be met (one of its groups, or `*`: any signed-in user); more than one only when rules
    /// were combined. Empty: no one needs to be anyone.
    package var groups: [[String]]
    /// Anyone may see the image up to this many pixels on its long side; more needs `groups`.
    package var maxPublicSize: Int?
    /// Whether a share link of a folder that reaches the image may grant it. Not for a file a symbolic link brought
    /// into the folder from one with a stricter rule: sharing a folder never shares what others keep elsewhere.
    package var shareable = true
    /// Whether originals (`/images/{id}/original`) are sent at all (`download = false`: to no one).
    package var downloads = true
    /// Whether a whole-slide image's label and macro (which shows the label) are served (`slide_labels = true`):
    /// they often carry a patient's name or number, so not unless the folder says so.
    package var slideLabels = false

    package init(view: View = .public, groups: [[String]] = [], maxPublicSize: Int? = nil) {
        self.view = view
        self.groups = groups
        self.maxPublicSize = maxPublicSize
    }

    /// No rule at all: everyone sees everything.
    package static let open = FolderRule()

    /// Whether everyone sees the whole picture (whether its original is sent is `downloads`).
    package var isOpen: Bool { view == .public && maxPublicSize == nil }

    /// What a file under both rules gets: the stricter view, every group list, the smaller public size.
    package func strictest(_ other: FolderRule) -> FolderRule {
        let size: Int? = switch (maxPublicSize, other.maxPublicSize) {
        case let (a?, b?): min(a, b)
        case let (a?, nil): view == .public && other.view == .public ? a : nil
        case let (nil, b?): view == .public && other.view == .public ? b : nil
        case (nil, nil): nil
        }
        var lists = groups
        for list in other.groups where !lists.contains(list) { lists.append(list) }
        var combined = FolderRule(view: max(view, other.view), groups: lists, maxPublicSize: max(view, other.view) == .public ? size : nil)
        combined.shareable = shareable && other.shareable
        combined.downloads = downloads && other.downloads
        combined.slideLabels = slideLabels && other.slideLabels
        return combined
    }

    /// Whether someone in `memberOf` (signed in: `signedIn`) meets every group list.
    package func admits(signedIn: Bool, memberOf: Set<String>) -> Bool {
        groups.allSatisfy { list in list.contains { $0 == "*" ? signedIn : memberOf.contains($0) } }
    }
}
