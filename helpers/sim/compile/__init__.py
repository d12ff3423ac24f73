"""Compiling a module: from a learner's .cu source to a loaded library.

- `source`: the .cu text to the C++ unit compiled (and `INCLUDE_DIR`, the prelude's folder)
- `split`: kernels with barriers rewritten to run each stretch between barriers as a loop;
  `kernel_text`: a kernel's text read for it (tokens, statements, declarations)
- `toolchain`: the host C++ compiler, binutils and the CPU's float flags
- `builder`: the compile and link, cached; `cache`: the cache of built modules, trusted why
- `prebuilt`: what every module shares, built once (the grid runner, the trace's runtime, the
  precompiled prelude)
- `messages`: what the compiler and linker say, in the learner's terms; `device_calls`: what
  device code may call; `math_arguments`: a math function on types CUDA's device code has no
  version for (sqrt of an int), refused as nvcc refuses it; `device_rules`: a call of a function
  declared without __device__, a kernel called, a host variable, a __shared__ initializer,
  refused as by nvcc; `standard_library`: what of the C++ standard library device code may use;
  `linkage`: C++ (a template, cooperative_groups.h) inside SourceModule's extern "C" { }
- `warned`: what g++ warned about the learner's code, as records kept in the library
- `diagnosed`: g++'s errors about the learner's file, as records (`CompileError.diagnostics`)
- `sites`: where the learner's loads and stores are, in an instrumented build
- `lines`: which line of the learner's a fault's instruction is, from a twin with line tables
- `module`: the loaded library, its kernels and globals
"""
