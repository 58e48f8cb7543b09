import Foundation
import StateStore
import StateStoreTesting
import Testing

@Suite("IdentifiedArray")
struct IdentifiedArrayTests {
    struct Item: Identifiable, Equatable, Hashable, Codable, Sendable {
        let id: Int
        var name: String
    }

    @Test func accessAndMutationByID() {
        var items: IdentifiedArray<Item> = [Item(id: 1, name: "a"), Item(id: 2, name: "b")]
        #expect(items[id: 2]?.name == "b")
        items[id: 2]?.name = "B"
        items[id: 3] = Item(id: 3, name: "c")
        items[id: 1] = nil
        #expect(items.elements == [Item(id: 2, name: "B"), Item(id: 3, name: "c")])
        #expect(items.ids == [2, 3])
        #expect(items.index(id: 3) == 1)
        #expect(items.modify(id: 3) { $0.name = "C" } != nil)
        #expect(items.modify(id: 9) { $0.name = "?" } == nil)
        #expect(items[1].name == "C")
    }

    @Test func structuralChangesKeepPositionsRight() {
        var items: IdentifiedArray<Item> = []
        for id in 0..<5 { items.append(Item(id: id, name: "\(id)")) }
        items.insert(Item(id: 9, name: "9"), at: 0)
        items.remove(at: 3)
        items.move(from: 0, to: 4)
        #expect(items.ids == [0, 1, 3, 4, 9])
        for (position, item) in items.enumerated() { #expect(items.index(id: item.id) == position) }
        items.removeAll { $0.id.isMultiple(of: 3) }
        #expect(items.ids == [1, 4])
        #expect(items.append(Item(id: 4, name: "four")) == false, "appending an existing id replaces it")
        #expect(items[id: 4]?.name == "four")
    }

    @Test func equalityLooksAtElementsOnly() {
        let first: IdentifiedArray<Item> = [Item(id: 1, name: "a")]
        var second = IdentifiedArray<Item>()
        second.append(Item(id: 1, name: "x"))
        second[id: 1]?.name = "a"
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        second[id: 1]?.name = "b"
        #expect(first != second)
    }

    @Test func codableAsAPlainArrayAndRejectsDuplicateIDs() throws {
        let items: IdentifiedArray<Item> = [Item(id: 1, name: "a"), Item(id: 2, name: "b")]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(items)
        #expect(String(decoding: data, as: UTF8.self) == #"[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#)
        #expect(try JSONDecoder().decode(IdentifiedArray<Item>.self, from: data) == items)
        let duplicate = Data(#"[{"id":1,"name":"a"},{"id":1,"name":"b"}]"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(IdentifiedArray<Item>.self, from: duplicate) }
    }

    @Test func changedIDsReportWhatChangedSinceAVersion() {
        var items: IdentifiedArray<Item> = [Item(id: 1, name: "a"), Item(id: 2, name: "b")]
        let start = items.version
        #expect(items.changedIDs(since: start) == [])
        items[id: 2]?.name = "B"
        items.append(Item(id: 3, name: "c"))
        #expect(items.changedIDs(since: start).map(Set.init) == [2, 3])
        let copy = items
        items.remove(id: 1)
        #expect(items.changedIDs(since: copy.version) == [1])
        for index in 0..<40 { items[id: 2]?.name = "\(index)" }
        #expect(items.changedIDs(since: start) == nil, "beyond the log's reach: compare everything")
        items.removeAll()
        #expect(items.changedIDs(since: copy.version) == nil)
    }

    @Test func aDivergedCopyIsNeverMistakenForALaterVersion() {
        var original: IdentifiedArray<Item> = [Item(id: 1, name: "a"), Item(id: 2, name: "b")]
        var fork = original
        original[id: 1]?.name = "x"
        fork[id: 2]?.name = "y"
        #expect(original.version != fork.version)
        #expect(fork.changedIDs(since: original.version) == nil)
        #expect(original != fork)
    }
}

@Suite("IdentifiedArray at scale")
struct IdentifiedArrayScaleTests {
    struct Item: Identifiable, Equatable, Hashable, Sendable {
        let id: Int
        var value: Int
    }

    /// Checks every way of reading the collection against a plain array of the same elements.
    func expectMatches(_ items: IdentifiedArray<Item>, _ model: [Item], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(items.count == model.count, sourceLocation: sourceLocation)
        #expect(Array(items) == model, sourceLocation: sourceLocation)
        #expect(items.elements == model, sourceLocation: sourceLocation)
        for (position, item) in model.enumerated() where position % 7 == 0 || position == model.count - 1 {
            #expect(items[position] == item, sourceLocation: sourceLocation)
            #expect(items.index(id: item.id) == position, sourceLocation: sourceLocation)
            #expect(items[id: item.id] == item, sourceLocation: sourceLocation)
        }
    }

    @Test func randomEditsAgreeWithAnArray() {
        var random = SeededRandom(seed: 2026)
        var items = IdentifiedArray<Item>()
        var model: [Item] = []
        var nextID = 0
        for step in 0..<6_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                let index = Int.random(in: 0...model.count, using: &random)
                let item = Item(id: nextID, value: step)
                nextID += 1
                items.insert(item, at: index)
                model.insert(item, at: index)
            case 4..<6 where !model.isEmpty:
                let index = Int.random(in: 0..<model.count, using: &random)
                let id = model[index].id
                #expect(items.remove(id: id) == model.remove(at: index))
            case 6 where !model.isEmpty:
                let source = Int.random(in: 0..<model.count, using: &random)
                let destination = Int.random(in: 0..<model.count, using: &random)
                items.move(from: source, to: destination)
                model.insert(model.remove(at: source), at: destination)
            case 7 where !model.isEmpty:
                let index = Int.random(in: 0..<model.count, using: &random)
                items.modify(id: model[index].id) { $0.value = -step }
                model[index].value = -step
            case 8:
                let item = Item(id: nextID, value: step)
                nextID += 1
                items.append(item)
                model.append(item)
            default:
                items.insert(Item(id: nextID, value: step), at: 0)
                model.insert(Item(id: nextID, value: step), at: 0)
                nextID += 1
            }
            if step % 500 == 0 { expectMatches(items, model) }
        }
        expectMatches(items, model)
        #expect(items.contains(id: nextID) == false)
        #expect(items[id: nextID] == nil)
    }

    @Test func insertingAlwaysAtTheSamePlaceRespacesTheKeys() {
        // Each insert halves the gap between the same two neighbours until there is none left.
        var items: IdentifiedArray<Item> = [Item(id: -1, value: 0), Item(id: -2, value: 0)]
        var model = Array(items)
        for id in 0..<200 {
            items.insert(Item(id: id, value: id), at: 1)
            model.insert(Item(id: id, value: id), at: 1)
        }
        expectMatches(items, model)
    }

    @Test func aCopyIsNeverChangedByChangesToTheOriginal() {
        var items = IdentifiedArray(uniqueElements: (0..<10_000).map { Item(id: $0, value: $0) })
        let snapshot = items
        let snapshotModel = Array(snapshot)
        for id in stride(from: 0, to: 10_000, by: 97) { items.modify(id: id) { $0.value = -1 } }
        for id in stride(from: 1, to: 10_000, by: 89) { items.remove(id: id) }
        for id in 10_000..<10_300 { items.insert(Item(id: id, value: id), at: 0) }
        #expect(Array(snapshot) == snapshotModel)
        #expect(snapshot[id: 97]?.value == 97)
        #expect(items[id: 97]?.value == -1)
        #expect(items != snapshot)
    }

    @Test func equalityComparesElementsWhateverTheShape() {
        let built = IdentifiedArray(uniqueElements: (0..<5_000).map { Item(id: $0, value: $0) })
        var grown = IdentifiedArray<Item>()
        for id in (0..<5_000).reversed() { grown.insert(Item(id: id, value: id), at: 0) }
        #expect(built == grown)
        #expect(built.hashValue == grown.hashValue)
        var changed = built
        changed.modify(id: 4_321) { $0.value = 0 }
        #expect(changed != built)
        changed.modify(id: 4_321) { $0.value = 4_321 }
        #expect(changed == built)
    }

    @Test func removingMostElementsKeepsEverythingFindable() {
        var items = IdentifiedArray(uniqueElements: (0..<3_000).map { Item(id: $0, value: $0) })
        items.removeAll { $0.id % 10 != 0 }
        var model = (0..<3_000).filter { $0 % 10 == 0 }.map { Item(id: $0, value: $0) }
        expectMatches(items, model)
        for id in model.map(\.id) where id % 20 == 0 { items.remove(id: id) }
        model.removeAll { $0.id % 20 == 0 }
        expectMatches(items, model)
        items.sort { $0.id > $1.id }
        expectMatches(items, model.reversed())
    }
}

extension IdentifiedArrayScaleTests {
    /// An id whose hash says nothing, so every lookup goes through full hash collisions.
    struct CollidingID: Hashable, Sendable {
        let raw: Int
        func hash(into hasher: inout Hasher) { hasher.combine(raw % 3) }
    }

    struct Colliding: Identifiable, Equatable, Sendable {
        let id: CollidingID
        var value: Int
    }

    @Test func idsWhoseHashesCollideAreStillTellApart() {
        var items = IdentifiedArray<Colliding>()
        for raw in 0..<60 { items.append(Colliding(id: CollidingID(raw: raw), value: raw)) }
        for raw in stride(from: 0, to: 60, by: 2) { items.remove(id: CollidingID(raw: raw)) }
        items[id: CollidingID(raw: 7)]?.value = -7
        #expect(items.count == 30)
        #expect(items.map(\.id.raw) == Array(stride(from: 1, to: 60, by: 2)))
        #expect(items[id: CollidingID(raw: 7)]?.value == -7)
        #expect(items[id: CollidingID(raw: 8)] == nil)
        #expect(items.index(id: CollidingID(raw: 59)) == 29)
    }
}
