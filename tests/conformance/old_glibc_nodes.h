/* Makes a program built here ask for the C library's calls at the nodes a
   program linked on glibc 2.33 or older asks for (sem_wait@GLIBC_2.2.5
   rather than sem_wait@@GLIBC_2.34): included first (-include) by the
   `*_oldglibc` builds of conformance programs, so that they exercise what
   the runtime answers at those nodes (ult/glibc_compat_linux.cpp). x86-64. */
#if defined(__x86_64__)
#define OLD_GLIBC_NODE(name, node) __asm__(".symver " #name ", " #name "@" #node);
OLD_GLIBC_NODE(pthread_create, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_getattr_np, GLIBC_2.2.5)
OLD_GLIBC_NODE(sem_wait, GLIBC_2.2.5)
OLD_GLIBC_NODE(sem_timedwait, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_barrier_init, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_barrier_wait, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_barrier_destroy, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_mutex_trylock, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_mutex_timedlock, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_rwlock_rdlock, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_rwlock_wrlock, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_rwlock_unlock, GLIBC_2.2.5)
OLD_GLIBC_NODE(pthread_spin_lock, GLIBC_2.2.5)
OLD_GLIBC_NODE(clock_nanosleep, GLIBC_2.2.5)
OLD_GLIBC_NODE(sem_clockwait, GLIBC_2.30)
OLD_GLIBC_NODE(pthread_cond_clockwait, GLIBC_2.30)
OLD_GLIBC_NODE(pthread_mutex_clocklock, GLIBC_2.30)
OLD_GLIBC_NODE(pthread_setaffinity_np, GLIBC_2.3.4)
OLD_GLIBC_NODE(pthread_getaffinity_np, GLIBC_2.3.4)
#undef OLD_GLIBC_NODE
#endif
