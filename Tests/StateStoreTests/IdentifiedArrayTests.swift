import Foundation
import StateStore
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
