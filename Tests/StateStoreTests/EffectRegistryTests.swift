import Testing

@testable import StateStore

/// Stands for an effect's outlet: the registry only asks it for the action.
private final class Origin: EffectOrigin {
    let name: String
    init(_ name: String) { self.name = name }
    var originAction: any Sendable { name }
}

@Suite("Effect registry: slots and keys")
struct EffectRegistryTests {
    @Test func aKeyKeptPastItsEffectsEndNamesNothingOnceTheSlotIsTakenAgain() {
        var registry = EffectRegistry()
        let first = registry.insert(ids: [], outlet: Origin("first"), lineage: Lineage())
        #expect(registry.remove(first)?.origin as? String == "first")
        let second = registry.insert(ids: [], outlet: Origin("second"), lineage: Lineage())
        #expect(registry.running.count == 1, "the freed slot is reused")
        #expect(second != first)
        #expect(registry.slot(of: first) == nil, "a late `keep` or `finished` for the first effect must miss")
        #expect(registry.remove(first) == nil)
        let (tasks, _) = registry.cancel([first])
        #expect(tasks.isEmpty)
        #expect(registry.running[0]?.isCancelled == false, "the second effect was not cancelled for the first")
        #expect(registry.remove(second)?.origin as? String == "second")
    }

    @Test func runningEffectsKeepTheOrderTheyStartedInWhateverSlotsTheyTake() {
        var registry = EffectRegistry()
        let keys = (0..<4).map { registry.insert(ids: [], outlet: Origin("effect \($0)"), lineage: Lineage()) }
        _ = registry.remove(keys[1])
        _ = registry.remove(keys[2])
        _ = registry.insert(ids: [], outlet: Origin("effect 4"), lineage: Lineage())
        _ = registry.insert(ids: [], outlet: Origin("effect 5"), lineage: Lineage())
        let started = registry.running.compactMap { $0 }.sorted { $0.sequence < $1.sequence }.map { $0.origin as? String }
        #expect(started == ["effect 0", "effect 3", "effect 4", "effect 5"])
        #expect(registry.running.count == 4, "two slots were freed and taken again")
    }
}
