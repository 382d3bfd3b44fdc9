// Internal: process state shared by the files of the process concern.
#pragma once

void rt_argv_init(int argc, char** argv);
void rt_time_init();   // the default start of end_timer when start_timer was never called
