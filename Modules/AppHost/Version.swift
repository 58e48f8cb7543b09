/// AppCore's version: what `--version` prints, and what the changelog's releases are named.
public enum AppCoreVersion {
    /// The version of this source tree, as `major.minor.patch`.
    public static let current = "0.1.0"
}
