/* Bobbin's own API, for programs and libraries that want to choose how their
   nested parallel regions are scheduled. Everything else is standard OpenMP.
   Link with -lbobbin (or run under Bobbin); these symbols do not exist in
   other OpenMP runtimes, so guard calls with a weak declaration if the
   program must also run elsewhere. */
#ifndef BOBBIN_H
#define BOBBIN_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bobbin_nested_mode_t {
  bobbin_nested_default = 0, /* BOBBIN_NESTED (gang unless set to steal) */
  bobbin_nested_gang = 1,    /* gang-scheduled: one member per worker, no deadlock on user barriers */
  bobbin_nested_steal = 2    /* members queued on the creator's worker, taken by idle workers */
} bobbin_nested_mode_t;

/* Sets the mode of nested parallel regions: for the next region the calling
   thread opens if next_only is non-zero, else for every later region of the
   program (bobbin_nested_default undoes that). */
void bobbin_set_nested_mode(bobbin_nested_mode_t mode, int next_only);
/* The mode later nested regions get (not counting a next-only choice). */
bobbin_nested_mode_t bobbin_get_nested_mode(void);

/* The spellings of the HClib-based OpenMP runtime that introduced gang
   scheduling of nested regions: set = gang mode for every later region,
   reset = back to the default. (OMP_GANG_SCHED=1/0 is its environment form.) */
void ompx_set_gang_sched(void);
void ompx_reset_gang_sched(void);

/* Prints every worker's queue length and gang stack (level:gang id of the
   gang fibers started and unfinished on it) to stderr: for watchdogs that
   report what hung. Not async-signal-safe. */
void bobbin_print_scheduler_state(void);

/* "Bobbin <version>". */
const char* bobbin_version(void);

#ifdef __cplusplus
}
#endif

#endif /* BOBBIN_H */
