#include "CConformanceRegistration.h"

// The Swift runtime's entry point for a block of conformance records (ProtocolConformance.cpp);
// it is how an image's records are added, and it clears the conformance cache.
extern void swift_registerProtocolConformances(const void *begin, const void *end);

// Defined by the linker when the section exists; weak, so that without it both are null.
extern const char __start_swcred_deferred_conformances[] __attribute__((weak));
extern const char __stop_swcred_deferred_conformances[] __attribute__((weak));

void swcred_register_deferred_conformances(void) {
    static int registered;
    if (registered || __start_swcred_deferred_conformances == __stop_swcred_deferred_conformances) {
        return;
    }
    registered = 1;
    swift_registerProtocolConformances(__start_swcred_deferred_conformances, __stop_swcred_deferred_conformances);
}
