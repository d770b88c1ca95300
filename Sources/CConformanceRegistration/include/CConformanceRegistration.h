#ifndef C_CONFORMANCE_REGISTRATION_H
#define C_CONFORMANCE_REGISTRATION_H

/// Hands the Swift runtime the protocol-conformance records that the link put in the section
/// `swcred_deferred_conformances` (lazy-conformances.ld: all but those of the Swift runtime,
/// swift-argument-parser and swcred's own modules), so that every later lookup sees them. Until
/// this is called, a lookup that misses the runtime's cache scans only those. Registering empties
/// the runtime's cache, negative answers included, so no lookup made before it is wrong after it.
/// Call it once, before running a command; a no-op when the link did not make the section
/// (another linker, or a build without the script).
void swcred_register_deferred_conformances(void);

#endif
