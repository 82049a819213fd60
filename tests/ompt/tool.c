/* A counting OMPT tool (OMP_TOOL_LIBRARIES=tool.so): every callback the
   runtime delivers is counted under a key naming the event and its
   arguments that a program fixes (kinds, flags, endpoints, sizes), and a
   few invariants are checked as the events come:
     - the thread, parallel and task data passed are never null where the
       spec gives one, and ompt_get_thread_data() answers inside callbacks;
     - every created task is scheduled in at most once before it completes,
       and completes (complete, cancel or late fulfill) exactly once;
     - implicit tasks, parallel regions, sync regions and work constructs
       begin and end in pairs, per thread where the spec says so;
     - every thread that began ends.
   At finalization it writes the sorted counts to $OMPT_COUNTS (stdout if
   unset), then "violations N" and the first violations seen. The harness
   (ompt_check.py) compares the counts with the stock runtime's. */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ompt_get_thread_data_t get_thread_data;
static ompt_get_unique_id_t unique_id;
static ompt_set_callback_t set_callback;

#define MAX_KEYS 512
#define MAX_TASKS 65536
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  char key[96];
  long count;
} g_keys[MAX_KEYS];
static int g_nkeys;
static int g_violations;
static char g_first[8][160];
static long g_thread_balance, g_parallel_balance, g_implicit_balance, g_sync_balance, g_work_balance;
/* Per explicit task (its id): 0 unknown, 1 created, 2 running or suspended, 3 complete. */
static unsigned char g_task_state[MAX_TASKS];

static void violation(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (g_violations < 8) vsnprintf(g_first[g_violations], sizeof g_first[0], fmt, ap);
  va_end(ap);
  g_violations++;
}

/* Called with g_lock held. */
static void count_locked(const char* fmt, ...) {
  char key[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(key, sizeof key, fmt, ap);
  va_end(ap);
  for (int i = 0; i < g_nkeys; i++)
    if (strcmp(g_keys[i].key, key) == 0) {
      g_keys[i].count++;
      return;
    }
  if (g_nkeys < MAX_KEYS) {
    strcpy(g_keys[g_nkeys].key, key);
    g_keys[g_nkeys++].count = 1;
  }
}

#define LOCKED(body)               \
  do {                             \
    pthread_mutex_lock(&g_lock);   \
    body;                          \
    pthread_mutex_unlock(&g_lock); \
  } while (0)

static void need_thread(const char* where) {
  ompt_data_t* t = get_thread_data();
  if (!t) violation("%s: ompt_get_thread_data() is null inside a callback", where);
  else if (t->value == 0) violation("%s: the thread's data was never set (no thread_begin)", where);
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t* data) {
  if (!data) {
    LOCKED(violation("thread_begin: null thread data"));
    return;
  }
  data->value = unique_id();
  LOCKED(count_locked("thread_begin type=%d", (int)type); g_thread_balance++);
}

static void on_thread_end(ompt_data_t* data) {
  LOCKED(count_locked("thread_end"); g_thread_balance--;
         if (!data || data->value == 0) violation("thread_end: a thread that did not begin"));
}

static void on_parallel_begin(ompt_data_t* task, const ompt_frame_t* frame, ompt_data_t* parallel,
                              unsigned requested, int flags, const void* ra) {
  (void)frame;
  need_thread("parallel_begin");
  parallel->value = unique_id();
  LOCKED(count_locked("parallel_begin requested=%u flags=0x%x", requested, (unsigned)flags); g_parallel_balance++;
         if (!task) violation("parallel_begin: null encountering task");
         if (!ra) violation("parallel_begin: null return address"));
}

static void on_parallel_end(ompt_data_t* parallel, ompt_data_t* task, int flags, const void* ra) {
  (void)ra;
  need_thread("parallel_end");
  LOCKED(count_locked("parallel_end flags=0x%x", (unsigned)flags); g_parallel_balance--;
         if (!parallel || !task) violation("parallel_end: null data"));
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t* parallel, ompt_data_t* task, unsigned size,
                             unsigned num, int flags) {
  (void)num;
  need_thread("implicit_task");
  if (ep == ompt_scope_begin) {
    task->value = unique_id();
    LOCKED(count_locked("implicit_task begin size=%u flags=0x%x", (flags & ompt_task_initial) ? 1 : size,
                        (unsigned)flags);
           g_implicit_balance++; if (!parallel) violation("implicit_task begin: null parallel data"));
  } else {
    LOCKED(count_locked("implicit_task end flags=0x%x", (unsigned)flags); g_implicit_balance--);
  }
}

static void on_task_create(ompt_data_t* parent, const ompt_frame_t* frame, ompt_data_t* task, int type,
                           int has_deps, const void* ra) {
  (void)frame;
  (void)ra;
  need_thread("task_create");
  task->value = unique_id();
  LOCKED(count_locked("task_create type=0x%x deps=%d", (unsigned)type, has_deps);
         if (!parent) violation("task_create: null parent");
         if (task->value < MAX_TASKS) g_task_state[task->value] = 1);
}

static void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  need_thread("task_schedule");
  LOCKED(
      count_locked("task_schedule status=%d", (int)status); if (!prior) violation("task_schedule: null prior task");
      else {
        uint64_t p = prior->value;
        int ends = status == ompt_task_complete || status == ompt_task_cancel || status == ompt_task_late_fulfill ||
                   status == ompt_taskwait_complete;
        if (p < MAX_TASKS && g_task_state[p]) {
          if (ends) {
            if (g_task_state[p] == 3) violation("task %lu completed twice", (unsigned long)p);
            g_task_state[p] = 3;
          }
        }
      } if (next && next->value < MAX_TASKS && g_task_state[next->value]) {
        if (g_task_state[next->value] == 3) violation("task %lu scheduled after it completed", (unsigned long)next->value);
        else g_task_state[next->value] = 2;
      });
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t* parallel,
                           ompt_data_t* task, const void* ra) {
  (void)parallel;
  (void)ra;
  need_thread("sync_region");
  LOCKED(count_locked("sync_region kind=%d ep=%d", (int)kind, (int)ep); g_sync_balance += ep == ompt_scope_begin ? 1 : -1;
         if (!task) violation("sync_region: null task"));
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t* parallel,
                                ompt_data_t* task, const void* ra) {
  (void)parallel;
  (void)task;
  (void)ra;
  LOCKED(count_locked("sync_region_wait kind=%d ep=%d", (int)kind, (int)ep));
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t ep, ompt_data_t* parallel, ompt_data_t* task,
                    uint64_t count, const void* ra) {
  (void)parallel;
  (void)ra;
  need_thread("work");
  /* The count is the trip count at the begin (single: 1). */
  LOCKED(count_locked("work kind=%d ep=%d count=%lu", (int)kind, (int)ep,
                      ep == ompt_scope_begin ? (unsigned long)count : 0ul);
         g_work_balance += ep == ompt_scope_begin ? 1 : -1; if (!task) violation("work: null task"));
}

static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t* parallel, ompt_data_t* task, const void* ra) {
  (void)parallel;
  (void)task;
  (void)ra;
  LOCKED(count_locked("masked ep=%d", (int)ep));
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t id, const void* ra) {
  (void)hint;
  (void)impl;
  (void)id;
  (void)ra;
  LOCKED(count_locked("mutex_acquire kind=%d", (int)kind));
}
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void* ra) {
  (void)id;
  (void)ra;
  LOCKED(count_locked("mutex_acquired kind=%d", (int)kind));
}
static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t id, const void* ra) {
  (void)id;
  (void)ra;
  LOCKED(count_locked("mutex_released kind=%d", (int)kind));
}
static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t id, const void* ra) {
  (void)id;
  (void)ra;
  LOCKED(count_locked("nest_lock ep=%d", (int)ep));
}
static void on_lock_init(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t id, const void* ra) {
  (void)hint;
  (void)impl;
  (void)id;
  (void)ra;
  LOCKED(count_locked("lock_init kind=%d", (int)kind));
}
static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t id, const void* ra) {
  (void)id;
  (void)ra;
  LOCKED(count_locked("lock_destroy kind=%d", (int)kind));
}
static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t* parallel, ompt_data_t* task,
                         const void* ra) {
  (void)parallel;
  (void)task;
  (void)ra;
  LOCKED(count_locked("reduction kind=%d ep=%d", (int)kind, (int)ep));
}
static void on_cancel(ompt_data_t* task, int flags, const void* ra) {
  (void)task;
  (void)ra;
  LOCKED(count_locked("cancel flags=0x%x", (unsigned)flags));
}
static void on_dependences(ompt_data_t* task, const ompt_dependence_t* deps, int n) {
  (void)task;
  LOCKED(for (int i = 0; i < n; i++) count_locked("dependence type=%d", (int)deps[i].dependence_type));
}
static void on_flush(ompt_data_t* thread, const void* ra) {
  (void)thread;
  (void)ra;
  LOCKED(count_locked("flush"));
}
static int on_control_tool(uint64_t command, uint64_t modifier, void* arg, const void* ra) {
  (void)arg;
  (void)ra;
  LOCKED(count_locked("control_tool command=%lu modifier=%lu", (unsigned long)command, (unsigned long)modifier));
  return 7;  /* the program checks that omp_control_tool returns it */
}

static int cmp_keys(const void* a, const void* b) { return strcmp((const char*)a, (const char*)b); }

#define REGISTER(event, fn)                                                          \
  do {                                                                               \
    if (set_callback(event, (ompt_callback_t)(fn)) != ompt_set_always)               \
      fprintf(stderr, "ompt tool: %s is not delivered always\n", #event);            \
  } while (0)

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)device;
  (void)data;
  set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  unique_id = (ompt_get_unique_id_t)lookup("ompt_get_unique_id");
  if (!set_callback || !get_thread_data || !unique_id) {
    fprintf(stderr, "ompt tool: the lookup function lacks an entry point\n");
    return 0;
  }
  REGISTER(ompt_callback_thread_begin, on_thread_begin);
  REGISTER(ompt_callback_thread_end, on_thread_end);
  REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
  REGISTER(ompt_callback_parallel_end, on_parallel_end);
  REGISTER(ompt_callback_implicit_task, on_implicit_task);
  REGISTER(ompt_callback_task_create, on_task_create);
  REGISTER(ompt_callback_task_schedule, on_task_schedule);
  REGISTER(ompt_callback_sync_region, on_sync_region);
  REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
  REGISTER(ompt_callback_work, on_work);
  REGISTER(ompt_callback_masked, on_masked);
  REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
  REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
  REGISTER(ompt_callback_mutex_released, on_mutex_released);
  REGISTER(ompt_callback_nest_lock, on_nest_lock);
  REGISTER(ompt_callback_lock_init, on_lock_init);
  REGISTER(ompt_callback_lock_destroy, on_lock_destroy);
  REGISTER(ompt_callback_reduction, on_reduction);
  REGISTER(ompt_callback_cancel, on_cancel);
  REGISTER(ompt_callback_dependences, on_dependences);
  REGISTER(ompt_callback_flush, on_flush);
  REGISTER(ompt_callback_control_tool, on_control_tool);
  return 1;
}

static void finalize(ompt_data_t* data) {
  (void)data;
  const char* path = getenv("OMPT_COUNTS");
  FILE* out = path ? fopen(path, "w") : stdout;
  if (!out) out = stdout;
  pthread_mutex_lock(&g_lock);
  for (unsigned long i = 1; i < MAX_TASKS; i++)
    if (g_task_state[i] == 1 || g_task_state[i] == 2) violation("task %lu never completed", i);
  if (g_thread_balance) violation("threads begun and not ended: %ld", g_thread_balance);
  if (g_parallel_balance) violation("parallel regions begun and not ended: %ld", g_parallel_balance);
  if (g_implicit_balance) violation("implicit tasks begun and not ended: %ld", g_implicit_balance);
  if (g_sync_balance) violation("sync regions begun and not ended: %ld", g_sync_balance);
  if (g_work_balance) violation("work constructs begun and not ended: %ld", g_work_balance);
  qsort(g_keys, (size_t)g_nkeys, sizeof g_keys[0], cmp_keys);
  for (int i = 0; i < g_nkeys; i++) fprintf(out, "%s %ld\n", g_keys[i].key, g_keys[i].count);
  fprintf(out, "violations %d\n", g_violations);
  for (int i = 0; i < g_violations && i < 8; i++) fprintf(out, "violation: %s\n", g_first[i]);
  pthread_mutex_unlock(&g_lock);
  if (out != stdout) fclose(out);
}

ompt_start_tool_result_t* ompt_start_tool(unsigned int version, const char* runtime) {
  (void)version;
  (void)runtime;
  static ompt_start_tool_result_t result = {&initialize, &finalize, {0}};
  return &result;
}
