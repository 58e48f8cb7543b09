// swift-tools-version: 6.2
import PackageDescription

// MARK: - Modules

/// Library modules: one job each, one product each, so front ends depend on exactly what they use.
let modules: [Target] = [
    .target(name: "StateStore", path: "Modules/StateStore"),
    .target(name: "StateExploration", dependencies: ["StateStore"], path: "Modules/StateExploration"),
    .target(name: "StateStoreTesting", dependencies: ["StateStore", "StateExploration"], path: "Modules/StateStoreTesting"),
    .target(name: "Models", path: "Modules/Models"),
    .target(name: "AppEnvironment", dependencies: ["Models", "StateStore"], path: "Modules/AppEnvironment"),
    .target(name: "Reducers", dependencies: ["Models", "StateStore", "AppEnvironment"], path: "Modules/Reducers"),
    .target(name: "ViewModels", dependencies: ["Models", "StateStore", "Reducers"], path: "Modules/ViewModels"),
    .target(
        name: "AppHost",
        dependencies: ["Models", "StateStore", "AppEnvironment", "Reducers", "ViewModels", "Persistence"],
        path: "Modules/AppHost"
    ),
    // The app explored through intents: apart from AppHost, so front ends need not link the model checker.
    .target(
        name: "AppExploration",
        dependencies: ["Models", "StateStore", "AppEnvironment", "Reducers", "ViewModels", "AppHost", "StateExploration"],
        path: "Modules/AppExploration"
    ),
    .target(
        name: "Console",
        dependencies: ["Models", "StateStore", "AppEnvironment", "Reducers", "ViewModels", "AppHost", "AppExploration"],
        path: "Modules/Console"
    ),
    .target(
        name: "Persistence",
        dependencies: [
            "Models", "AppEnvironment", "StateStore", "CSQLite",
            .target(name: "CCrypto", condition: .when(platforms: [.linux, .android, .openbsd])),
        ],
        path: "Modules/Persistence"
    ),
]

// MARK: - System libraries

/// C libraries of the operating system, reached through module maps (no Swift package wraps them).
let systemLibraries: [Target] = [
    .systemLibrary(name: "CSQLite", path: "Modules/CSQLite", pkgConfig: "sqlite3",
                   providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]),
    .systemLibrary(name: "CCrypto", path: "Modules/CCrypto", pkgConfig: "libcrypto",
                   providers: [.apt(["libssl-dev"])]),
]

// MARK: - Apps

/// The shells: executables that own the terminal, the files or the pipe, and nothing else.
/// `appcore-serve` is also the README's one-file front end, checked against it by the tests.
let apps: [Target] = [
    .executableTarget(name: "appcore-repl", dependencies: ["Console", "AppHost"], path: "Apps/REPL"),
    .executableTarget(name: "appcore-batch", dependencies: ["Console", "AppHost", "AppExploration"], path: "Apps/Batch"),
    .executableTarget(name: "appcore-serve", dependencies: ["Console", "AppHost"], path: "Apps/Serve"),
]

// MARK: - Tools

let tools: [Target] = [
    .executableTarget(
        name: "appcore-bench",
        dependencies: [
            "StateStore", "Models", "AppEnvironment", "Reducers", "Persistence", "AppHost", "AppExploration", "Console", "StoreBenchmarks",
            "appcore-bench-dispatch", "appcore-serve",
        ],
        path: "Tools/Benchmarks"
    ),
    // The store's cases and the harness, without Foundation.
    .target(name: "StoreBenchmarks", dependencies: ["StateStore"], path: "Tools/StoreBenchmarks"),
    // A process that only dispatches, for memory-dispatch: what the store alone keeps resident.
    .executableTarget(name: "appcore-bench-dispatch", dependencies: ["StoreBenchmarks"], path: "Tools/DispatchMemory"),
]

// MARK: - Tests

let tests: [Target] = [
    // What every test target shares: temporary folders, waiting, collectors.
    .target(name: "TestSupport", dependencies: ["StateStore"], path: "Tests/Support"),
    .testTarget(
        name: "StateStoreTests",
        dependencies: ["TestSupport", "StateStore", "StateStoreTesting"],
        path: "Tests/StateStoreTests"
    ),
    .testTarget(
        name: "StateStoreTestingTests",
        dependencies: ["TestSupport", "StateStore", "StateStoreTesting"],
        path: "Tests/StateStoreTestingTests"
    ),
    .testTarget(name: "ModelsTests", dependencies: ["TestSupport", "Models"], path: "Tests/ModelsTests"),
    .testTarget(
        name: "AppEnvironmentTests",
        dependencies: ["TestSupport", "Models", "AppEnvironment", "StateStore", "StateStoreTesting"],
        path: "Tests/AppEnvironmentTests"
    ),
    .testTarget(
        name: "ReducersTests",
        dependencies: ["TestSupport", "Models", "AppEnvironment", "Reducers", "StateStore", "StateStoreTesting"],
        path: "Tests/ReducersTests"
    ),
    .testTarget(
        name: "ViewModelsTests",
        dependencies: ["TestSupport", "Models", "AppEnvironment", "Reducers", "StateStore", "StateStoreTesting", "ViewModels"],
        path: "Tests/ViewModelsTests"
    ),
    .testTarget(
        name: "ConsoleTests",
        dependencies: ["TestSupport", "Models", "AppEnvironment", "Reducers", "StateStore", "StateStoreTesting", "ViewModels", "AppHost", "Console"],
        path: "Tests/ConsoleTests"
    ),
    .testTarget(
        name: "AppHostTests",
        dependencies: ["TestSupport", "Models", "AppEnvironment", "Reducers", "StateStore", "ViewModels", "Persistence", "AppHost"],
        path: "Tests/AppHostTests"
    ),
    .testTarget(
        name: "AppExplorationTests",
        dependencies: ["TestSupport", "Models", "Reducers", "AppHost", "AppExploration", "Console"],
        path: "Tests/AppExplorationTests"
    ),
    .testTarget(
        name: "AppsTests",
        dependencies: ["TestSupport", "appcore-batch", "appcore-repl", "appcore-serve", "StateStoreTesting", "Persistence", "Reducers", "AppEnvironment", "AppHost"],
        path: "Tests/AppsTests"
    ),
    .testTarget(
        name: "PersistenceTests",
        dependencies: ["TestSupport", "Models", "AppEnvironment", "Reducers", "StateStore", "StateStoreTesting", "Persistence"],
        path: "Tests/PersistenceTests"
    ),
]

// MARK: - Shared settings

/// Applied to every target: Swift 6 mode (complete strict concurrency) and zero warnings.
/// SwiftPM drops warning-control settings when AppCore is built as someone else's dependency.
let sharedSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

let targets = modules + systemLibraries + apps + tools + tests
for target in targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}

let package = Package(
    name: "AppCore",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: modules.map { .library(name: $0.name, targets: [$0.name]) }
        + apps.map { .executable(name: $0.name, targets: [$0.name]) }
        + [.executable(name: "appcore-bench", targets: ["appcore-bench"])],
    dependencies: [],
    targets: targets,
    swiftLanguageModes: [.v6]
)
