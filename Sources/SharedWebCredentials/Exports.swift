// The parsers and value types live in SharedWebCredentialsCore so that they build without the
// vault's and the network's dependencies; users of SharedWebCredentials get them with one import.
@_exported import SharedWebCredentialsCore
