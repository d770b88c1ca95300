#ifndef CPROCESSHARDENING_H
#define CPROCESSHARDENING_H

/// Sets whether the process may dump core or be attached to by a debugger without privilege:
/// prctl(PR_SET_DUMPABLE), which Swift cannot call because prctl is variadic.
int cprocess_set_dumpable(int dumpable);

/// prctl(PR_GET_DUMPABLE): 1 when the process may dump core, 0 when not, -1 on error.
int cprocess_get_dumpable(void);

#endif
