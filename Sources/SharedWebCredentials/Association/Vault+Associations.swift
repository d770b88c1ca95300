/// The association tables of a vault (migration 0002): registered apps and their verdicts.
extension Vault {
    /// The apps registered in this vault.
    public var apps: AppRegistry { AppRegistry(vault: self) }

    /// The stored verdicts of this vault's apps.
    public var associations: AssociationStore { AssociationStore(vault: self) }
}
