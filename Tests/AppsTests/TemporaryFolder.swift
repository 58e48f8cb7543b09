import Foundation

/// A fresh folder under the system's temporary directory, removed when the value is released.
final class TemporaryFolder: Sendable {
    let path: String

    init(_ prefix: String) {
        path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
