/* Preloaded after libbobbin.so by gcc_run.py's `bindings` mode: with
   LD_BIND_NOW=1 every symbol binding is made and reported (LD_DEBUG=bindings)
   before the first constructor of a preloaded library runs, so the program
   need not run at all: this one ends the process there. */
#include <unistd.h>

__attribute__((constructor)) static void stop_after_binding(void) { _exit(0); }
