/// One universal-link pattern compiled for matching: `*` matches any run of characters (none
/// included), `?` exactly one, `$(name)` any value of a substitution variable, everything else
/// itself.
///
/// Matching simulates the pattern as a non-deterministic automaton over the text, one character
/// at a time, keeping each automaton state at most once per step. It never backtracks, so a
/// match costs at most (states × characters) steps however many `*` the pattern holds: no input
/// can make it blow up.
public struct URLPattern: Sendable {
    /// Why a pattern cannot be compiled.
    public enum Problem: Error, Equatable, Sendable {
        /// `$(name)` names no variable of the file and no predefined one.
        case undefinedVariable(String)
        /// Substitution makes the pattern larger than ``maximumStates``.
        case tooComplex(states: Int)
    }

    /// The most automaton states a pattern may compile to (after substitution).
    public static let maximumStates = 1 << 18

    private enum Kind: UInt8 {
        case symbol, oneOf, any, star, split, match
    }

    private struct State {
        var kind: Kind
        var next: Int32
        var symbol: Int32 = -1
        var set = ASCIISet("")
        var targets: Range<Int> = 0..<0
    }

    private enum Element {
        case character(Character)
        case any
        case star
        case oneOf(ASCIISet)
        case anyOf([[Element]])
    }

    /// The pattern as written.
    public let text: String
    /// Whether letters must match in case.
    public let caseSensitive: Bool
    private var states: [State] = []
    private var splitTargets: [Int32] = []
    private var symbols: [Character: Int32] = [:]

    /// The number of automaton states; a match costs at most this many steps per character.
    public var stateCount: Int { states.count }

    /// Compiles `text`. A `$(` without its `)` is taken literally.
    public init(_ text: String, variables: SubstitutionVariables, caseSensitive: Bool) throws(Problem) {
        self.text = text
        self.caseSensitive = caseSensitive
        let elements = try Self.elements(of: text, variables: variables, caseSensitive: caseSensitive)
        try emit(elements)
        states.append(State(kind: .match, next: -1))
    }

    /// Whether the whole of `subject` matches the pattern.
    public func matches(_ subject: String) -> Bool {
        var current = StateSet(capacity: states.count)
        var following = StateSet(capacity: states.count)
        var pending: [Int32] = []
        addClosure(0, to: &current, pending: &pending)
        for character in subject {
            let symbol = symbols[fold(character)] ?? -1
            let ascii = character.asciiValue ?? 0xFF
            following.removeAll()
            for index in current.members {
                let state = states[Int(index)]
                switch state.kind {
                case .symbol where state.symbol == symbol: addClosure(state.next, to: &following, pending: &pending)
                case .oneOf where state.set.contains(ascii): addClosure(state.next, to: &following, pending: &pending)
                case .any: addClosure(state.next, to: &following, pending: &pending)
                case .star: addClosure(index, to: &following, pending: &pending)
                default: break
                }
            }
            swap(&current, &following)
            if current.members.isEmpty { return false }
        }
        return current.contains(Int32(states.count - 1))
    }

    /// Adds `start` and every state reachable from it without reading a character; `pending` is
    /// scratch space, reused so that a step allocates nothing.
    private func addClosure(_ start: Int32, to set: inout StateSet, pending: inout [Int32]) {
        pending.append(start)
        while let index = pending.popLast() {
            guard set.insert(index) else { continue }
            let state = states[Int(index)]
            switch state.kind {
            case .split: pending.append(contentsOf: splitTargets[state.targets].reversed())
            case .star: pending.append(state.next)
            default: break
            }
        }
    }

    private func fold(_ character: Character) -> Character {
        guard !caseSensitive else { return character }
        let lower = character.lowercased()
        return lower.count == 1 ? Character(lower) : character
    }

    private mutating func symbol(for character: Character) -> Int32 {
        let folded = fold(character)
        if let known = symbols[folded] { return known }
        let new = Int32(symbols.count)
        symbols[folded] = new
        return new
    }

    /// Appends the states of `elements`; each state's `next` is the state after it, so the caller
    /// patches the last one when the sequence must join somewhere else.
    private mutating func emit(_ elements: [Element]) throws(Problem) {
        for element in elements {
            let next = Int32(states.count + 1)
            switch element {
            case .character(let character):
                states.append(State(kind: .symbol, next: next, symbol: symbol(for: character)))
            case .any: states.append(State(kind: .any, next: next))
            case .star: states.append(State(kind: .star, next: next))
            case .oneOf(let set): states.append(State(kind: .oneOf, next: next, set: set))
            case .anyOf(let alternatives):
                let split = states.count
                states.append(State(kind: .split, next: -1))
                var starts: [Int32] = []
                var ends: [Int] = []
                for alternative in alternatives {
                    if alternative.isEmpty {
                        starts.append(-1)
                        continue
                    }
                    starts.append(Int32(states.count))
                    try emit(alternative)
                    ends.append(states.count - 1)
                }
                let join = Int32(states.count)
                for end in ends { states[end].next = join }
                let first = splitTargets.count
                splitTargets.append(contentsOf: starts.map { $0 < 0 ? join : $0 })
                states[split].targets = first..<splitTargets.count
            }
            if states.count > Self.maximumStates { throw .tooComplex(states: states.count) }
        }
    }

    private static func elements(
        of text: String, variables: SubstitutionVariables?, caseSensitive: Bool
    ) throws(Problem) -> [Element] {
        var result: [Element] = []
        var rest = Substring(text)
        while let character = rest.first {
            if character == "$", let variables, rest.dropFirst().first == "(",
                let close = rest.firstIndex(of: ")")
            {
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                guard let definition = variables.definition(of: name) else { throw .undefinedVariable(name) }
                switch definition {
                case .oneOf(let set): result.append(.oneOf(caseSensitive ? set : set.caseInsensitive))
                case .anyOf(let values):
                    var alternatives: [[Element]] = []
                    for value in values {
                        // Values hold wildcards but never other variables.
                        alternatives.append(try elements(of: value, variables: nil, caseSensitive: caseSensitive))
                    }
                    result.append(.anyOf(alternatives))
                }
                rest = rest[rest.index(after: close)...]
                continue
            }
            switch character {
            case "*": result.append(.star)
            case "?": result.append(.any)
            default: result.append(.character(character))
            }
            rest = rest.dropFirst()
        }
        return result
    }
}

/// A set of automaton states with O(1) insert, membership and clearing (a generation-stamped
/// sparse set), iterated in insertion order.
private struct StateSet {
    private(set) var members: [Int32] = []
    private var stamps: [UInt32]
    private var generation: UInt32 = 1

    init(capacity: Int) {
        stamps = Array(repeating: 0, count: capacity)
        members.reserveCapacity(capacity)
    }

    /// Adds `state`; false when it was already there.
    mutating func insert(_ state: Int32) -> Bool {
        if stamps[Int(state)] == generation { return false }
        stamps[Int(state)] = generation
        members.append(state)
        return true
    }

    func contains(_ state: Int32) -> Bool { stamps[Int(state)] == generation }

    mutating func removeAll() {
        members.removeAll(keepingCapacity: true)
        generation &+= 1
        if generation == 0 {
            for index in stamps.indices { stamps[index] = 0 }
            generation = 1
        }
    }
}
