// Eternal<T>: a namespace-scope object that is ready before this library's
// constructors run, and is never destroyed.
//
// A library the program links is initialised before a runtime that is
// preloaded (LD_PRELOAD): the loader runs the constructors of the objects
// deepest in the dependency order first, and nothing the program links
// depends on the preloaded object. A constructor there that calls an omp_*
// routine (OpenBLAS's OpenMP build asks omp_get_num_places while it loads)
// therefore reaches Bobbin before Bobbin's own dynamic initialisers. An object
// built by one of those would be used unconstructed, and later constructed
// over what had been stored in it.
//
// Eternal<T> is constant-initialised (constinit: T needs a constexpr default
// constructor, as std::vector, std::mutex and the atomics have), so it exists
// from the moment the library is mapped. It is never destroyed: workers are
// not joined at exit and may still read it while the program's static
// destructors run. What cannot be constant-initialised is built on first use
// instead (a function-local static): std::unordered_map and std::deque, and
// std::string, which clang 14 rejects with libstdc++ 12.
#pragma once

namespace bobbin::ult {

template <class T>
union Eternal {
  constexpr Eternal() : value() {}
  ~Eternal() {}  // NOLINT(modernize-use-equals-default): a union's = default is deleted here
  T value;
};

}  // namespace bobbin::ult
