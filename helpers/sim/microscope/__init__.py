"""The microscope: a launch run on its module's instrumented build, and what it shows.

- `instrumented`: one launch on the instrumented build (the ctypes side of include/sim_trace_api.h)
- `trace`: each warp's loads and stores against the memory system (`with trace() as t:`); its
  tables in `tables`, its pictures in `pictures`
- `racecheck`: a race as a RaceError; `initcheck`: a read of memory never written (global or
  shared) as an UninitialisedReadError; `bounds`: an access out of bounds, which every launch
  there is checked for, as an OutOfBoundsError
- `places`: names for the addresses a kernel touched; `provenance`: which threads stored an
  element and what the last of them loaded before; `occupancy`: the CUDA occupancy calculator
"""
