import Foundation
import Synchronization
import Testing

/// A fresh folder under the system's temporary directory, removed when the value is released.
final class TemporaryFolder: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "appcore-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

func permissions(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
}

/// A flag one task sets and another waits for.
final class Flag: Sendable {
    private let isSet = Mutex(false)

    func set() { isSet.withLock { $0 = true } }

    func wait() async {
        while !isSet.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
    }
}
