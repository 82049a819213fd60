// The C library's older nodes of the calls this library answers.
//
// A program binds each C library function it calls to a version node, the
// default one of the C library it was linked against. Where glibc 2.34
// moved the thread functions from libpthread into libc it gave them a new
// default node (sem_wait@@GLIBC_2.34) and kept the old one beside it
// (sem_wait@GLIBC_2.2.5, the same function). bobbin.map exports this
// library's waits at the new default, so a program linked on an older
// system (glibc 2.33 and before: most cluster images and containers still)
// asked for the old node, did not find it here, and reached the C library
// directly: its semaphore, barrier and read-write lock waits blocked a
// worker instead of letting the worker's other fibers run, and the threads
// it started from a pinned worker kept that worker's one processor.
//
// Each row is a name at one older node whose function has the same
// arguments and meaning as the default, answered by a jump to this
// library's function of that name (ult/symver_jump.hpp). Older nodes with
// another meaning are not answered: pthread_cond_wait@GLIBC_2.2.5 and
// pthread_cond_timedwait@GLIBC_2.2.5 take the condition variable of
// LinuxThreads' layout, and the affinity calls at GLIBC_2.3.3 a mask
// without its size; those stay the C library's. tests/abi/
// check_glibc_nodes.py fails when a name exported at a GLIBC node lacks
// one of the C library's other nodes of it that is not listed there as
// different.
#include <features.h>  // __GLIBC__

#include "ult/symver_jump.hpp"

#if defined(__x86_64__) && defined(__GLIBC__)

#define BOBBIN_GLIBC_NODE(name, node) \
  BOBBIN_SYMVER_JUMP("_bobbin_glibc_" #name "_" BOBBIN_SYMVER_STR(__LINE__), #name "@" #node, name)

// glibc 2.2.5 (x86-64's first node): libpthread's names until 2.34, and
// librt's clock_nanosleep until 2.17.
BOBBIN_GLIBC_NODE(pthread_create, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_getattr_np, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(sem_wait, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(sem_timedwait, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_barrier_init, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_barrier_wait, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_barrier_destroy, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_mutex_trylock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_mutex_timedlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_rwlock_rdlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_rwlock_wrlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_rwlock_timedrdlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_rwlock_timedwrlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_rwlock_trywrlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_rwlock_unlock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(pthread_spin_lock, GLIBC_2.2.5)
BOBBIN_GLIBC_NODE(clock_nanosleep, GLIBC_2.2.5)
// glibc 2.30's clock-taking waits, in libpthread until 2.34.
BOBBIN_GLIBC_NODE(sem_clockwait, GLIBC_2.30)
BOBBIN_GLIBC_NODE(pthread_cond_clockwait, GLIBC_2.30)
BOBBIN_GLIBC_NODE(pthread_mutex_clocklock, GLIBC_2.30)
BOBBIN_GLIBC_NODE(pthread_rwlock_clockrdlock, GLIBC_2.30)
BOBBIN_GLIBC_NODE(pthread_rwlock_clockwrlock, GLIBC_2.30)
// The affinity calls with a mask size, in libpthread until 2.32/2.34.
BOBBIN_GLIBC_NODE(pthread_getaffinity_np, GLIBC_2.3.4)
BOBBIN_GLIBC_NODE(pthread_setaffinity_np, GLIBC_2.3.4)

#endif
