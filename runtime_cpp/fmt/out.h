// Internal: the process-wide stdout buffer (10.2) and raw writes.
#pragma once
#include <cstddef>

void rt_stdout_init();                        // remembers whether fd 1 is a terminal
void rt_write_all(int fd, const char* p, size_t n);   // loops over short writes and EINTR
// Before a runtime error message: write out buffered stdout. In a signal handler it waits
// only briefly for the lock (the faulting thread may hold it).
void rt_stdout_flush_for_error(bool in_signal);
