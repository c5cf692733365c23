/// An array that keeps its first element inline: a shard call almost always makes one attempt,
/// and an `Array` of one element is an allocation per shard per call. The rest (failovers,
/// hedges) go to an ordinary array. Indices are 0..<count, as an array's.
struct SmallArray<Element>: RandomAccessCollection, MutableCollection {
    private var first: Element?
    private var rest: [Element] = []

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : 1 + rest.count }

    subscript(index: Int) -> Element {
        get { index == 0 ? first! : rest[index - 1] }
        set {
            if index == 0 {
                precondition(first != nil, "index out of range")
                first = newValue
            } else {
                rest[index - 1] = newValue
            }
        }
    }

    mutating func append(_ element: Element) {
        if first == nil { first = element } else { rest.append(element) }
    }
}
