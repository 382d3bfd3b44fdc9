// Frost's per-op profiler (FROST_PROFILE=1), for the native kernels: a scope that times itself
// when the profile is on (one branch on a flag read once when off). Entry points in frost.h.
#pragma once
#include <stdint.h>
#include "frost.h"

namespace frost_prof {

bool on();

// Times the enclosing block as op `name` with `flops` floating-point operations (0: undefined).
struct Scope {
    const char* name;
    double flops;
    int64_t t0;
    Scope(const char* n, double f) : name(n), flops(f), t0(on() ? frost__c_prof_begin() : 0) {}
    ~Scope() {
        if (t0) frost__c_prof_end(name, t0, flops);
    }
};

}  // namespace frost_prof
