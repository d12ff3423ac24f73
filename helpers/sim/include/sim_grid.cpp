// sim_grid.cpp -- the grid runner (sim_grid.h), compiled once for each kind of module: with or
// without fibers, and with the prelude's switches (compile/prebuilt.py). Every module of that
// kind is linked with it; the module's own code is the prelude, the learner's and the kernel table.
#define SIM_GRID_UNIT 1
#include "sim_grid.h"
#include "sim_prelude_end.h"
