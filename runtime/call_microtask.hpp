// Calling an outlined region body (a microtask) with any number of captured
// variables. Compilers pass each variable as one more argument after the
// two thread-number pointers, so a region that names many variables has a
// microtask with as many parameters; team.cpp's fixed invokers cover up to
// 64 and this covers the rest.
#pragma once

namespace bobbin::rt {

// Whether call_microtask_n can call a microtask with more than 64 arguments here.
constexpr bool kCallsAnyArity =
#if defined(__x86_64__)
    true;
#else
    false;
#endif

}  // namespace bobbin::rt

extern "C" {
// fn(gtid, tid, argv[0], ..., argv[argc - 1]). When `on_frame` is not null it
// is called first with the frame address of the call's direct caller (this
// function's: the exit frame a tool sees for the implicit task). x86-64 only.
void bobbin_call_microtask_n(void* fn, int* gtid, int* tid, int argc, void** argv, void (*on_frame)(void*));
}
