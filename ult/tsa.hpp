// Clang thread-safety annotations (no-ops elsewhere). Build with -Wthread-safety.
#pragma once

#if defined(__clang__)
#define BOBBIN_TSA(x) __attribute__((x))
#else
#define BOBBIN_TSA(x)
#endif

#define CAPABILITY(x) BOBBIN_TSA(capability(x))
#define SCOPED_CAPABILITY BOBBIN_TSA(scoped_lockable)
#define GUARDED_BY(x) BOBBIN_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) BOBBIN_TSA(pt_guarded_by(x))
#define REQUIRES(...) BOBBIN_TSA(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) BOBBIN_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) BOBBIN_TSA(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) BOBBIN_TSA(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) BOBBIN_TSA(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS BOBBIN_TSA(no_thread_safety_analysis)
