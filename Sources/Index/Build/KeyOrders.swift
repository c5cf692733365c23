import Dispatch

/// The order in which a build writes the keys of `ids` and of `titles`: document numbers sorted by
/// their entry's id, and by their title key (``TitleKey``).
///
/// Both depend only on the rank order, so a parallel build sorts them on a thread of its own while
/// its own thread interns the words (for 1M entries: the two sorts a third of a second each, the
/// interning a second, each on one core). Sorting document numbers by the flat ids and titles
/// (``FlatStrings``) also spares the million title keys a build used to allocate only to sort them.
///
/// Thread ownership: `result` is written by the sorting thread alone, before it leaves `done`, and
/// read only after `wait()` has waited for that.
final class KeyOrders: @unchecked Sendable {
    private let done = DispatchGroup()
    private var result: (byID: [UInt32], byTitle: [UInt32]) = ([], [])

    /// Starts sorting (on another thread when `parallel`, else at once): `order[docnum]` is the
    /// index, in `ids` and `titles`, of the entry with that document number.
    init(order: [Int], ids: FlatStrings, titles: FlatStrings, writesTitles: Bool, parallel: Bool) {
        guard parallel else {
            result = Self.sort(order: order, ids: ids, titles: titles, writesTitles: writesTitles)
            return
        }
        done.enter()
        DispatchQueue.global().async { [self] in
            result = Self.sort(order: order, ids: ids, titles: titles, writesTitles: writesTitles)
            done.leave()
        }
    }

    /// The document numbers in `ids` key order, then in `titles` key order (empty without titles).
    func wait() -> (byID: [UInt32], byTitle: [UInt32]) {
        done.wait()
        return result
    }

    private static func sort(order: [Int], ids: FlatStrings, titles: FlatStrings, writesTitles: Bool)
        -> (byID: [UInt32], byTitle: [UInt32]) {
        let docnums = (0..<UInt32(order.count)).map { $0 }
        // Ids are unique: no tie to break.
        let byID = docnums.sorted { ids.compare(order[Int($0)], order[Int($1)]) < 0 }
        guard writesTitles else { return (byID, []) }
        // A title key is the title cut to its first bytes, 0x00, the document number: cut titles
        // compare as the keys do (a shorter one first, 0x00 being before any byte of a word), and
        // equal ones by document number.
        let byTitle = docnums.sorted { a, b in
            let order = titles.compare(order[Int(a)], order[Int(b)], cut: TitleKey.maximumTitleBytes)
            return order != 0 ? order < 0 : a < b
        }
        return (byID, byTitle)
    }
}
