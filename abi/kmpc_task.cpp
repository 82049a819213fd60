// __kmpc_* tasking entry points. abi/ owns the kmp_task_t layout: it asks the
// runtime for storage of the right size and fills the compiler-visible part.
#include <cstddef>
#include <cstring>
#include <vector>

#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

namespace {

// A null routine is an empty task: libomp 14's 'taskwait depend(...) nowait'
// codegen allocates one and gives it only the dependences.
// Its frame is the task's exit frame for a tool (runtime/ompt.hpp).
void run_task(void* payload, int gtid) {
  auto* t = static_cast<kmp_task_t*>(payload);
  if (rt::ompt::on()) [[unlikely]] rt::ompt::set_exit_frame(__builtin_frame_address(0));
  if (t->routine) t->routine(gtid, t);
  asm volatile("" ::: "memory");  // not a tail call: the frame must stay while the body runs
}

// The moldable model tells tasks apart by the compiler's routine.
const bool g_routine_registered = (rt::register_task_routine(&run_task, [](void* payload) -> const void* {
                                     return reinterpret_cast<const void*>(static_cast<kmp_task_t*>(payload)->routine);
                                   }),
                                   true);

// The compiler's destructors thunk: the runtime runs it once the body has
// ended, for undeferred (if(0)) tasks too, as the compiler expects.
void destroy_privates(void* payload, int gtid) {
  auto* t = static_cast<kmp_task_t*>(payload);
  t->data1.destructors(gtid, t);
}

// Translates a depend list (both of the compiler's lists) into runtime items.
struct Deps {
  rt::DepItem inline_items[16];
  std::vector<rt::DepItem> more;
  rt::DepItem* items = inline_items;
  int n = 0;
  Deps(kmp_int32 n1, const kmp_depend_info_t* l1, kmp_int32 n2, const kmp_depend_info_t* l2) {
    int total = (n1 > 0 ? n1 : 0) + (n2 > 0 ? n2 : 0);
    if (total > 16) {
      more.resize(std::size_t(total));
      items = more.data();
    }
    add(n1, l1);
    add(n2, l2);
  }
  void add(kmp_int32 count, const kmp_depend_info_t* l) {
    for (kmp_int32 i = 0; i < count; ++i) {
      // omp_all_memory: libomp's flag bit, or (older codegen) the address
      // SIZE_MAX with an out or inout kind.
      bool all = (l[i].flags & 0x80) || (uintptr_t(l[i].base_addr) == UINTPTR_MAX && (l[i].flags & rt::kDepOut));
      items[n++] = rt::DepItem{uintptr_t(l[i].base_addr), all ? uint8_t(rt::kDepAllMemory) : l[i].flags};
    }
  }
};

void copy_for_chunk(void* dst, void* src, bool last, void* ctx) {
  auto* d = static_cast<kmp_task_t*>(dst);
  auto* s = static_cast<kmp_task_t*>(src);
  std::size_t size = rt::task_payload_size(src);
  memcpy(dst, src, size);
  // shareds points into the payload itself (the shared-pointer block follows the privates).
  auto* sp = static_cast<char*>(s->shareds);
  if (sp >= static_cast<char*>(src) && sp < static_cast<char*>(src) + size) {
    d->shareds = static_cast<char*>(dst) + (sp - static_cast<char*>(src));
  }
  if (ctx) reinterpret_cast<void (*)(kmp_task_t*, kmp_task_t*, kmp_int32)>(ctx)(d, s, last ? 1 : 0);
}

void taskloop(kmp_task_t* task, int if_val, kmp_uint64* lb, kmp_uint64* ub, kmp_int64 st, int nogroup, int sched,
              kmp_uint64 grainsize, bool strict, void* task_dup) {
  rt::TaskloopSpec s;
  s.pattern = task;
  s.lb_offset = std::size_t(reinterpret_cast<char*>(lb) - reinterpret_cast<char*>(task));
  s.ub_offset = std::size_t(reinterpret_cast<char*>(ub) - reinterpret_cast<char*>(task));
  s.stride = st;
  s.if_clause = if_val != 0;
  s.nogroup = nogroup != 0;
  s.strict = strict;
  s.sched = sched;
  s.grain = grainsize;
  s.copy = &copy_for_chunk;
  s.ctx = task_dup;
  rt::taskloop(s);
}

// The two layouts of task reduction items (kmp_taskred_input_t has the
// original variable and an initialiser that may read it).
std::vector<rt::TaskRedItem> taskred_items(int n, const kmp_taskred_input_t* in) {
  std::vector<rt::TaskRedItem> items(std::size_t(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) {
    items[std::size_t(i)] = rt::TaskRedItem{in[i].reduce_shar, in[i].reduce_orig, in[i].reduce_size, nullptr,
                                            reinterpret_cast<void (*)(void*, void*)>(in[i].reduce_init),
                                            reinterpret_cast<void (*)(void*)>(in[i].reduce_fini),
                                            reinterpret_cast<void (*)(void*, void*)>(in[i].reduce_comb)};
  }
  return items;
}

std::vector<rt::TaskRedItem> task_red_items(int n, const kmp_task_red_input_t* in) {
  std::vector<rt::TaskRedItem> items(std::size_t(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) {
    items[std::size_t(i)] = rt::TaskRedItem{in[i].reduce_shar, nullptr, in[i].reduce_size,
                                            reinterpret_cast<void (*)(void*)>(in[i].reduce_init), nullptr,
                                            reinterpret_cast<void (*)(void*)>(in[i].reduce_fini),
                                            reinterpret_cast<void (*)(void*, void*)>(in[i].reduce_comb)};
  }
  return items;
}

}  // namespace

BOBBIN_EXPORT kmp_task_t* __kmpc_omp_task_alloc(ident_t*, kmp_int32, kmp_int32 flags, size_t sizeof_kmp_task_t,
                                                size_t sizeof_shareds, kmp_routine_entry_t entry) {
  rt::TaskSpec spec;
  spec.run = &run_task;
  if (flags & kmp_task_destructors_thunk) spec.cleanup = &destroy_privates;
  spec.tied = (flags & kmp_task_tied) != 0;
  spec.final_ = (flags & kmp_task_final) != 0;
  spec.hidden_helper = (flags & kmp_task_hidden_helper) != 0;
  if (flags & kmp_task_priority_specified) spec.priority_offset = int(offsetof(kmp_task_t, data2));
  std::size_t head = (sizeof_kmp_task_t + 7) & ~std::size_t(7);
  auto* t = static_cast<kmp_task_t*>(rt::task_alloc(spec, head + sizeof_shareds));
  t->shareds = sizeof_shareds ? reinterpret_cast<char*>(t) + head : nullptr;
  t->routine = entry;
  t->part_id = 0;
  t->data1.destructors = nullptr;
  t->data2.priority = 0;
  // A proxy task completes when its body has returned and someone called
  // __kmpc_proxy_task_completed(_ooo) for it: a detached task whose event
  // that call fulfils.
  if (flags & kmp_task_proxy) rt::task_detach_event(t);
  return t;
}

// `target nowait` (and target regions with depend): clang wraps the region
// in a target task. With no offload device its routine runs the host
// version of the region; the task goes to the hidden helper threads
// (runtime/hidden_helper.cpp), as on libomp, which ignores device_id too.
BOBBIN_EXPORT kmp_task_t* __kmpc_omp_target_task_alloc(ident_t* loc, kmp_int32 gtid, kmp_int32 flags,
                                                       size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                                       kmp_routine_entry_t entry, kmp_int64 /*device_id*/) {
  return __kmpc_omp_task_alloc(loc, gtid, flags | kmp_task_hidden_helper, sizeof_kmp_task_t, sizeof_shareds,
                               entry);
}

BOBBIN_EXPORT kmp_int32 __kmpc_omp_task(ident_t*, kmp_int32, kmp_task_t* task) {
  BOBBIN_OMPT_ENTRY;
  rt::task_submit(task, nullptr, 0);
  return 0;
}

BOBBIN_EXPORT kmp_int32 __kmpc_omp_task_with_deps(ident_t*, kmp_int32, kmp_task_t* task, kmp_int32 ndeps,
                                                  kmp_depend_info_t* deps, kmp_int32 ndeps_noalias,
                                                  kmp_depend_info_t* noalias) {
  BOBBIN_OMPT_ENTRY;
  Deps d(ndeps, deps, ndeps_noalias, noalias);
  rt::task_submit(task, d.items, d.n);
  return 0;
}

BOBBIN_EXPORT void __kmpc_omp_wait_deps(ident_t*, kmp_int32, kmp_int32 ndeps, kmp_depend_info_t* deps,
                                        kmp_int32 ndeps_noalias, kmp_depend_info_t* noalias) {
  BOBBIN_OMPT_ENTRY;
  Deps d(ndeps, deps, ndeps_noalias, noalias);
  rt::task_wait_deps(d.items, d.n);
}

// OpenMP 5.1 taskwait with depend, and with nowait: then it waits for
// nothing and acts as an empty task with those dependences.
namespace {
void run_nothing(void*, int) {}
}  // namespace
BOBBIN_EXPORT void __kmpc_omp_taskwait_deps_51(ident_t*, kmp_int32, kmp_int32 ndeps, kmp_depend_info_t* deps,
                                               kmp_int32 ndeps_noalias, kmp_depend_info_t* noalias,
                                               kmp_int32 has_no_wait) {
  BOBBIN_OMPT_ENTRY;
  Deps d(ndeps, deps, ndeps_noalias, noalias);
  if (!has_no_wait) {
    rt::task_wait_deps(d.items, d.n);
    return;
  }
  rt::TaskSpec spec;
  spec.run = &run_nothing;
  rt::task_submit(rt::task_alloc(spec, 16), d.items, d.n);
}

BOBBIN_EXPORT void __kmpc_omp_task_begin_if0(ident_t*, kmp_int32, kmp_task_t* task) {
  BOBBIN_OMPT_ENTRY;
  rt::task_begin_undeferred(task);
  // The program runs the body itself, from the caller's frame (the one this
  // function's frame pointer saved); the creating task stays in the runtime
  // (its enter frame) until __kmpc_omp_task_complete_if0.
  if (rt::ompt::on()) [[unlikely]] {
    rt::ompt::set_exit_frame(*static_cast<void**>(__builtin_frame_address(0)));
    bobbin_ompt_entry_.task = nullptr;
  }
}
BOBBIN_EXPORT void __kmpc_omp_task_complete_if0(ident_t*, kmp_int32, kmp_task_t* task) {
  rt::task_end_undeferred(task);
}

BOBBIN_EXPORT kmp_int32 __kmpc_omp_taskwait(ident_t*, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  rt::taskwait();
  return 0;
}
BOBBIN_EXPORT kmp_int32 __kmpc_omp_taskyield(ident_t*, kmp_int32, int) {
  BOBBIN_OMPT_ENTRY;
  rt::taskyield();
  return 0;
}
BOBBIN_EXPORT void __kmpc_taskgroup(ident_t*, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  rt::taskgroup_begin();
}
BOBBIN_EXPORT void __kmpc_end_taskgroup(ident_t*, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  rt::taskgroup_end();
}

BOBBIN_EXPORT void __kmpc_taskloop(ident_t*, int, kmp_task_t* task, int if_val, kmp_uint64* lb, kmp_uint64* ub,
                                   kmp_int64 st, int nogroup, int sched, kmp_uint64 grainsize, void* task_dup) {
  BOBBIN_OMPT_ENTRY;
  taskloop(task, if_val, lb, ub, st, nogroup, sched, grainsize, false, task_dup);
}
BOBBIN_EXPORT void __kmpc_taskloop_5(ident_t*, int, kmp_task_t* task, int if_val, kmp_uint64* lb, kmp_uint64* ub,
                                     kmp_int64 st, int nogroup, int sched, kmp_uint64 grainsize, int modifier,
                                     void* task_dup) {
  BOBBIN_OMPT_ENTRY;
  taskloop(task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier != 0, task_dup);
}

BOBBIN_EXPORT void* __kmpc_task_allow_completion_event(ident_t*, kmp_int32, kmp_task_t* task) {
  return rt::task_detach_event(task);
}

BOBBIN_EXPORT kmp_int32 __kmpc_omp_reg_task_with_affinity(ident_t*, kmp_int32, kmp_task_t* task, kmp_int32 n,
                                                          kmp_task_affinity_info_t* list) {
  if (n > 0) rt::task_set_affinity(task, reinterpret_cast<const void*>(list[0].base_addr), list[0].len);
  return 0;
}

BOBBIN_EXPORT void* __kmpc_taskred_init(int, int n, void* data) {
  std::vector<rt::TaskRedItem> items = taskred_items(n, static_cast<kmp_taskred_input_t*>(data));
  return rt::task_reduction_init(items.data(), int(items.size()));
}

BOBBIN_EXPORT void* __kmpc_task_reduction_init(int, int n, void* data) {
  std::vector<rt::TaskRedItem> items = task_red_items(n, static_cast<kmp_task_red_input_t*>(data));
  return rt::task_reduction_init(items.data(), int(items.size()));
}

// reduction(task, ...) on parallel (is_ws 0) and worksharing constructs
// (is_ws 1): every thread calls init with its own private copies as
// reduce_shar, and fini at the construct's end, before the construct's own
// reduction. The runtime tells constructs apart by their order, so is_ws is
// not needed.
BOBBIN_EXPORT void* __kmpc_taskred_modifier_init(ident_t*, int, int, int n, void* data) {
  std::vector<rt::TaskRedItem> items = taskred_items(n, static_cast<kmp_taskred_input_t*>(data));
  return rt::task_reduction_scope_begin(items.data(), int(items.size()));
}

BOBBIN_EXPORT void* __kmpc_task_reduction_modifier_init(ident_t*, int, int, int n, void* data) {
  std::vector<rt::TaskRedItem> items = task_red_items(n, static_cast<kmp_task_red_input_t*>(data));
  return rt::task_reduction_scope_begin(items.data(), int(items.size()));
}

BOBBIN_EXPORT void __kmpc_task_reduction_modifier_fini(ident_t*, int, int) { rt::task_reduction_scope_end(); }

BOBBIN_EXPORT void* __kmpc_task_reduction_get_th_data(int, void* group, void* data) {
  return rt::task_reduction_data(group, data);
}

BOBBIN_EXPORT void __kmpc_proxy_task_completed(kmp_int32, kmp_task_t* task) {
  rt::fulfill_event(rt::task_event(task));
}
// The same from a thread outside the runtime ("out of order").
BOBBIN_EXPORT void __kmpc_proxy_task_completed_ooo(kmp_task_t* task) { rt::fulfill_event(rt::task_event(task)); }

// A task the compiler split into parts (Intel's compilers): queued like any
// other; 0 is libomp's "the current task was not queued".
BOBBIN_EXPORT kmp_int32 __kmpc_omp_task_parts(ident_t*, kmp_int32, kmp_task_t* task) {
  rt::task_submit(task, nullptr, 0);
  return 0;
}

// Task ids as libomp's release builds report them (runtime/task_query.cpp).
BOBBIN_EXPORT kmp_uint64 __kmpc_get_taskid(void) { return rt::current_task_id(); }
BOBBIN_EXPORT kmp_uint64 __kmpc_get_parent_taskid(void) { return rt::parent_task_id(); }
BOBBIN_EXPORT int omp_in_explicit_task(void) { return rt::in_explicit_task(); }
