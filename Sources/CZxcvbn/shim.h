#ifndef CZXCVBN_SHIM_H
#define CZXCVBN_SHIM_H
#include <zxcvbn.h>
#endif
