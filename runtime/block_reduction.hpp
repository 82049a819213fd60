// Internal glue between workshare.cpp, task_closure.cpp and
// block_reduction.cpp (the parts of api.hpp's last block that need each
// other). Nothing here is called from abi/.
#pragma once

#include "runtime/api.hpp"

namespace bobbin::rt {

struct Task;

// ---- block_reduction.cpp ----
// A set of blocks with their storage, shared by every thread that binds it.
struct BlockRecord;
// Allocates zero-filled storage for `nthreads` threads and fills
// blocks[i].storage. The record starts with `refs` references
// (reductions_release drops one; the last frees it).
BlockRecord* reductions_create(ReductionBlock* blocks, int n, int nthreads, int refs);
void reductions_release(BlockRecord* rec);
// Binds `rec` to the innermost taskgroup of the current task (see api.hpp).
void reductions_bind(BlockRecord* rec);
// Copies the storage pointers of `rec` into blocks[i].storage.
void reductions_report(const BlockRecord* rec, ReductionBlock* blocks, int n);
// What the current task sees: the innermost binding of its own, else what it
// captured when it was created (null: no task reduction is visible).
const void* reductions_visible();
// workshare_begin's part: opens a taskgroup, lets the first thread allocate,
// binds the shared record in every thread.
void workshare_reductions_begin(ReductionBlock* blocks, int n);

// ---- task_closure.cpp ----
// The reductions a closure task captured at its creation (null if `t` is not
// a closure task or captured none).
const void* closure_reductions(const Task* t);

// ---- workshare.cpp ----
// The first thread of the team to call it runs make(ctx); every thread of the
// team returns what it returned. Every thread of the team must call it, in
// the same order relative to the team's other worksharing constructs (it
// counts as a single construct). A team-wide rendezvous: it waits at barriers.
void* team_once(void* (*make)(void* ctx), void* ctx);

}  // namespace bobbin::rt
