import SwiftSyntax

/// Names the declarations around a node, outermost first: `SiteAddress.parse(_:)`.
enum Declarations {
    static func path(of node: Syntax) -> String {
        var names: [String] = []
        var current = node.parent
        while let here = current {
            if let name = name(of: here) { names.append(name) }
            current = here.parent
        }
        return names.reversed().joined(separator: ".")
    }

    private static func name(of node: Syntax) -> String? {
        if let function = node.as(FunctionDeclSyntax.self) {
            return function.name.text + labels(function.signature.parameterClause.parameters)
        }
        if let initializer = node.as(InitializerDeclSyntax.self) {
            return "init" + labels(initializer.signature.parameterClause.parameters)
        }
        if node.is(DeinitializerDeclSyntax.self) { return "deinit" }
        if let subscriptDecl = node.as(SubscriptDeclSyntax.self) {
            return "subscript" + labels(subscriptDecl.parameterClause.parameters)
        }
        if let variable = node.as(VariableDeclSyntax.self) {
            return variable.bindings.first?.pattern.trimmedDescription
        }
        if let accessor = node.as(AccessorDeclSyntax.self) { return accessor.accessorSpecifier.text }
        if let type = node.asProtocol(NamedDeclSyntax.self) { return type.name.text }
        if let extensionDecl = node.as(ExtensionDeclSyntax.self) {
            return extensionDecl.extendedType.trimmedDescription
        }
        return nil
    }

    private static func labels(_ parameters: FunctionParameterListSyntax) -> String {
        "(" + parameters.map { $0.firstName.text + ":" }.joined() + ")"
    }
}
