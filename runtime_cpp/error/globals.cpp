// Creation of global instances (7.3): the chain of globals being created on the main thread,
// so a ctor that needs its own global reports `global initialization cycle: $A -> $B -> $A`.
#include <string>
#include <vector>
#include "neve_rt.h"
#include "error/panic.h"

namespace {
std::vector<const char*> g_creating;   // main thread only (globals are made before main)
}

extern "C" void nv_global_push(const char* name) { g_creating.push_back(name); }

extern "C" void nv_global_pop(void) {
    if (!g_creating.empty()) g_creating.pop_back();
}

extern "C" void nv_global_cycle(const char* name) {
    std::string msg = "global initialization cycle: ";
    size_t start = 0;
    for (size_t i = 0; i < g_creating.size(); i++)
        if (std::string(g_creating[i]) == name) start = i;
    for (size_t i = start; i < g_creating.size(); i++) {
        msg += "$";
        msg += g_creating[i];
        msg += " -> ";
    }
    msg += "$";
    msg += name;
    rt_panic(msg.c_str());
}
