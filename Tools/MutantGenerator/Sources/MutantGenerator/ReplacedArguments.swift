import SwiftSyntax

/// Arguments replaced by another value in scope: a call given the wrong one of two keys, paths or
/// ids is a classic slip that every argument's own type check lets through. Without type
/// checking, the candidates are chosen by what the syntax shows of types: an argument that is a
/// parameter of the enclosing function is replaced by the other parameters declared with the
/// same type, and by the call's other arguments that are such parameters; any other argument that
/// is a plain name, by the call's other plain-name arguments that are not parameters of another
/// type. A replacement of another type does not compile and is counted apart by the runner.
enum ReplacedArguments {
    /// At most this many replacements of one argument, nearest candidates first.
    static let limit = 3

    /// The names an argument that is a plain name may be replaced by, in order.
    static func candidates(for argument: LabeledExprSyntax, in call: FunctionCallExprSyntax) -> [String] {
        guard let name = plainName(argument.expression) else { return [] }
        let declared = parameters(around: Syntax(call))
        let type = declared.first { $0.name == name }?.type
        var names: [String] = []
        for sibling in call.arguments where sibling.id != argument.id {
            guard let other = plainName(sibling.expression) else { continue }
            let otherType = declared.first { $0.name == other }?.type
            if otherType == type || (type == nil && otherType == nil) { names.append(other) }
        }
        if let type { names += declared.filter { $0.type == type }.map(\.name) }
        var seen: Set<String> = [name]
        return Array(names.filter { seen.insert($0).inserted }.prefix(limit))
    }

    /// The name an expression is, when it is only a name (not `self`, a literal or a type).
    private static func plainName(_ expression: ExprSyntax) -> String? {
        guard let reference = expression.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil else {
            return nil
        }
        let text = reference.baseName.text
        guard let first = text.first, first.isLowercase || first == "_", !["self", "super"].contains(text) else {
            return nil
        }
        return text
    }

    /// The parameters (name and type as written) of the function or initializer around `node`.
    private static func parameters(around node: Syntax) -> [(name: String, type: String)] {
        var current = node.parent
        while let here = current {
            if let function = here.as(FunctionDeclSyntax.self) {
                return named(function.signature.parameterClause.parameters)
            }
            if let initializer = here.as(InitializerDeclSyntax.self) {
                return named(initializer.signature.parameterClause.parameters)
            }
            current = here.parent
        }
        return []
    }

    private static func named(_ parameters: FunctionParameterListSyntax) -> [(name: String, type: String)] {
        parameters.compactMap { parameter in
            let name = (parameter.secondName ?? parameter.firstName).text
            return name == "_" ? nil : (name, parameter.type.trimmedDescription)
        }
    }
}
