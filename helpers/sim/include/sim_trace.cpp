// sim_trace.cpp -- the memory trace's runtime (sim_trace.h), compiled once for each kind of
// instrumented module (compile/prebuilt.py) without the instrumentation, and linked into every
// instrumented module of that kind.
#include <string.h>

#include "sim_runtime.h"
#include "sim_trace.h"
#include "sim_prelude_end.h"
