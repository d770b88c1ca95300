import SwiftSyntax

/// The empty value of the collection a declaration returns, for the return-emptied operator.
enum ReturnedCollections {
    /// `[]`, `[:]` or `Data()` when the function, subscript or computed property that `node` returns
    /// from is declared to return an array, set, dictionary or `Data` (or an optional of one); nil
    /// otherwise, and for a return from a closure (its type is not written down).
    static func emptyValue(returnedFrom node: Syntax) -> String? {
        var current = node.parent
        while let here = current {
            if here.is(ClosureExprSyntax.self) || here.is(InitializerDeclSyntax.self) { return nil }
            if let function = here.as(FunctionDeclSyntax.self) {
                return function.signature.returnClause.flatMap { empty(for: $0.type) }
            }
            if let subscriptDecl = here.as(SubscriptDeclSyntax.self) {
                return empty(for: subscriptDecl.returnClause.type)
            }
            if let accessor = here.as(AccessorDeclSyntax.self), accessor.accessorSpecifier.text != "get" { return nil }
            if let binding = here.as(PatternBindingSyntax.self) {
                return binding.typeAnnotation.flatMap { empty(for: $0.type) }
            }
            current = here.parent
        }
        return nil
    }

    /// Whether a statement list is a whole function body or getter (where one expression is returned
    /// without `return`), not the body of an `if`, a loop or a closure.
    static func isWholeBody(_ list: CodeBlockItemListSyntax) -> Bool {
        guard let parent = list.parent else { return false }
        if parent.is(AccessorBlockSyntax.self) { return true }
        guard parent.is(CodeBlockSyntax.self), let owner = parent.parent else { return false }
        return owner.is(FunctionDeclSyntax.self) || owner.is(AccessorDeclSyntax.self)
    }

    private static func empty(for type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return empty(for: optional.wrappedType) }
        if type.is(ArrayTypeSyntax.self) { return "[]" }
        if type.is(DictionaryTypeSyntax.self) { return "[:]" }
        guard let named = type.as(IdentifierTypeSyntax.self) else { return nil }
        switch named.name.text {
        case "Array", "Set", "ContiguousArray": return "[]"
        case "Dictionary": return "[:]"
        case "Data": return "Data()"
        default: return nil
        }
    }
}
