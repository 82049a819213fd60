// Blocking MPI point-to-point calls that a fiber makes.
//
// The problem. Hybrid programs call blocking MPI (MPI_Recv, MPI_Send,
// MPI_Wait, ...) inside tasks and nested regions. The MPI library waits by
// polling its progress engine, on the caller's kernel thread. On a fiber
// that thread is a worker: the fibers queued behind the caller (the team
// mates of a team wider than the workers, one of which may be the very
// sender the call waits for) cannot run until the monitor rescues them
// (monitor.cpp), after BOBBIN_STUCK_US; and where ranks share the cores
// (several ranks per node, or more OpenMP threads than cores), the poll
// takes processor time from the threads that compute.
//
// Chosen: on a worker, a blocking call becomes its non-blocking twin
// (MPI_Isend, MPI_Irecv, MPI_Iprobe, ...) and a wait that tests it. Between
// tests, fibers runnable on the worker run first, as with sched_yield
// (yield_linux.cpp); with other fibers of the worker started but parked,
// the wait sleeps in slices of kSliceNs; alone on the worker, it polls for
// kSpinNs after its last look at other work, then polls between kernel
// yields, which give the processor to any thread that wants it (a rank on
// the same core, more workers than cores). A message that arrives during a
// slice is seen at its end: at most kSliceNs late, against transfers of
// tens of microseconds and more for the tiles such programs exchange.
//
// Only with MPI_THREAD_MULTIPLE (asked with PMPI_Query_thread at each call):
// at a lower level the program promised that one thread at a time calls
// MPI, and another fiber of the worker could call it while this one waits.
// Off a worker (the program's own threads, the monitor), with a runtime spin
// lock held, or when BOBBIN_MPI_WAIT=mpi, the call goes straight to the
// next definition (the MPI library's, or a profiling tool's).
//
// Not converted: collectives. MPI does not match a non-blocking collective
// with a blocking one, and a rank whose call comes from a thread that is
// not a worker would use the blocking form; they keep the library's wait.
// Nor Fortran's bindings (mpi_recv_, ...), which some MPI libraries route
// through their C functions and others do not.
//
// Collectives on fibers. The library's wait polls its progress engine, and
// a member polling there kept its worker from the members queued behind it:
// a team of 4 on 2 workers per rank, each member in MPI_Allreduce,
// MPI_Barrier or MPI_Bcast on a communicator of its own (the other rank
// taking them in the other order), took 15-55 s for 20 rounds of
// MPI_Allreduce and 6 s for MPI_Barrier (libomp: 0.05 and 0.1 s): the
// monitor may not switch fibers inside the MPI library (preempt_linux.cpp). Open MPI's engine gives the processor
// up (sched_yield) each time it finds nothing to do when its parameter
// mpi_yield_when_idle is on, which mpirun turns on only with more ranks
// than cores; on a worker that call is Bobbin's sched_yield
// (yield_linux.cpp), which runs the fibers queued there, and Open MPI makes
// it holding no lock of its own (a thread that waits for another's
// progress waits on a condition variable, which block_linux.cpp serves).
// So when the program is linked to Open MPI, its environment asks for it
// at load, before MPI_Init reads it (ask_mpi_to_yield), unless the program
// already set the parameter or asked for the MPI library's own waits
// (BOBBIN_MPI_WAIT=mpi). The same rounds now take 0.4-0.6 ms
// (MPI_Allreduce) and 0.6-8 ms (MPI_Barrier); alone on its worker such a
// wait gives the processor to the OS's other threads, as Open MPI does by
// itself with more ranks than cores.
//
// Invariants: (M1) the call returns what the library's blocking call would
// have: the same completion (a test that completes is the blocking call's
// return), the status written where the caller asked, the error code of
// the first MPI call that failed. (M2) A switch happens only with no
// runtime spin lock held (t_spinlocks_held), as in sched_yield.
//
// Handles are passed through as pointer-sized integers: MPI libraries whose
// handles are ints (MPICH's) read the low half of the register, and a
// request this file creates is zeroed storage of 8 bytes, enough for both
// kinds. A status this file needs but the caller did not ask for goes to
// scratch storage larger than any MPI library's MPI_Status, never to
// MPI_STATUS_IGNORE, whose value differs between libraries.
//
// Exported (abi/bobbin.map) only matters under LD_PRELOAD, where Bobbin
// comes before the MPI library in the lookup order; a program linked
// against Bobbin's libomp.so.5 after libmpi keeps the library's calls.
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "ult/atomic.hpp"
#include "ult/log.hpp"
#include "ult/mpi_wait.hpp"
#include "ult/spinlock.hpp"
#include "ult/worker.hpp"
#include "ult/yield.hpp"

namespace bobbin::ult {

namespace {

constexpr uint64_t kSpinNs = 20'000;
constexpr long kSliceNs = 50'000;
constexpr int kMpiThreadMultiple = 3;  // the value of MPI_THREAD_MULTIPLE in the MPI standard's order

Atomic<bool> g_enabled{true};

using Handle = void*;  // MPI_Datatype, MPI_Comm, MPI_Request* ...: passed through
using SendFn = int (*)(const void*, int, Handle, int, int, Handle);
using ISendFn = int (*)(const void*, int, Handle, int, int, Handle, void*);
using RecvFn = int (*)(void*, int, Handle, int, int, Handle, void*);
using IRecvFn = int (*)(void*, int, Handle, int, int, Handle, void*);
using SendrecvFn = int (*)(const void*, int, Handle, int, int, void*, int, Handle, int, int, Handle, void*);
using WaitFn = int (*)(void*, void*);
using TestFn = int (*)(void*, int*, void*);
using WaitallFn = int (*)(int, void*, void*);
using TestallFn = int (*)(int, void*, int*, void*);
using WaitanyFn = int (*)(int, void*, int*, void*);
using TestanyFn = int (*)(int, void*, int*, int*, void*);
using ProbeFn = int (*)(int, int, Handle, void*);
using IprobeFn = int (*)(int, int, Handle, int*, void*);
using QueryThreadFn = int (*)(int*);

// A symbol of the MPI library, looked up once it is first needed (the
// library is loaded by then: the program calls it). `next`: the definition
// after Bobbin's (RTLD_NEXT), for the straight path.
// A program that calls an MPI function Bobbin exports without an MPI
// library loaded (one probing for MPI by name) gets one line and an abort.
template <class Fn>
Fn lookup(Atomic<void*>& cache, const char* name, bool next) {
  void* f = cache.load(memory_order_acquire);
  if (!f) {
    f = dlsym(next ? RTLD_NEXT : RTLD_DEFAULT, name);
    if (!f) fatal("%s called, but no MPI library that defines it is loaded", name);
    cache.store(f, memory_order_release);
  }
  return reinterpret_cast<Fn>(f);
}

#define BOBBIN_MPI_FN(var, type, name, next)  \
  type var() {                                \
    static Atomic<void*> cache{nullptr};      \
    return lookup<type>(cache, name, next);   \
  }
BOBBIN_MPI_FN(next_send, SendFn, "MPI_Send", true)
BOBBIN_MPI_FN(next_ssend, SendFn, "MPI_Ssend", true)
BOBBIN_MPI_FN(next_recv, RecvFn, "MPI_Recv", true)
BOBBIN_MPI_FN(next_sendrecv, SendrecvFn, "MPI_Sendrecv", true)
BOBBIN_MPI_FN(next_wait, WaitFn, "MPI_Wait", true)
BOBBIN_MPI_FN(next_waitall, WaitallFn, "MPI_Waitall", true)
BOBBIN_MPI_FN(next_waitany, WaitanyFn, "MPI_Waitany", true)
BOBBIN_MPI_FN(next_probe, ProbeFn, "MPI_Probe", true)
BOBBIN_MPI_FN(p_isend, ISendFn, "PMPI_Isend", false)
BOBBIN_MPI_FN(p_issend, ISendFn, "PMPI_Issend", false)
BOBBIN_MPI_FN(p_irecv, IRecvFn, "PMPI_Irecv", false)
BOBBIN_MPI_FN(p_test, TestFn, "PMPI_Test", false)
BOBBIN_MPI_FN(p_testall, TestallFn, "PMPI_Testall", false)
BOBBIN_MPI_FN(p_testany, TestanyFn, "PMPI_Testany", false)
BOBBIN_MPI_FN(p_iprobe, IprobeFn, "PMPI_Iprobe", false)
BOBBIN_MPI_FN(p_query_thread, QueryThreadFn, "PMPI_Query_thread", false)
#undef BOBBIN_MPI_FN

// Whether this call waits the fiber's way (above).
bool on_fiber_path() {
  if (!g_enabled.load(memory_order_relaxed) || t_spinlocks_held != 0 || Worker::current() == nullptr) return false;
  QueryThreadFn query = p_query_thread();
  int level = 0;
  return query && query(&level) == 0 && level >= kMpiThreadMultiple;
}

// Storage for a status nobody asked for (an MPI_Status is 20-40 bytes).
struct ScratchStatus {
  alignas(16) unsigned char bytes[128];
};

// A request made here (M-handles, above).
struct Request {
  alignas(8) uint64_t raw = 0;
  void* ptr() { return &raw; }
};

uint64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1'000'000'000u + uint64_t(t.tv_nsec);
}

// Waits until `done` (one MPI test: returns its error code and sets *flag)
// reports completion, as the header describes. Returns the first error.
template <class Test>
int wait_for(Test done) {
  uint64_t spin_from = 0;
  for (;;) {
    int flag = 0;
    int rc = done(&flag);
    if (rc != 0 || flag) return rc;
    if (Worker::yield_to_queued()) {
      spin_from = 0;
      continue;
    }
    if (!Worker::others_share_worker()) {
      uint64_t t = now_ns();
      if (spin_from == 0) spin_from = t;
      if (t - spin_from < kSpinNs) {
        cpu_relax();
        continue;
      }
      // Polls between kernel yields, as the MPI library's own wait does
      // when it yields when idle: a yield hands the processor to any thread
      // that wants it (a rank on the same core, another worker) and comes
      // back at once when none does. Sleeping in slices instead, once a
      // yield had come back late, delayed each message on a panel's
      // critical path by up to a slice: mpilu 2048 at 4 ranks x 1 thread
      // on 2 cores ran at 0.95 of libomp's GFLOP/s, and at 1.15 with
      // yields; at 2 ranks x 2 threads, 21.4 against 25.5 GFLOP/s.
      os_yield();
      continue;
    }
    // The system call itself: Bobbin's clock_nanosleep (block_linux.cpp)
    // would look for fibers again.
    timespec slice{0, kSliceNs};
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &slice, nullptr);
  }
}

// Waits for one request; its status goes to `status` (the caller's, or scratch).
int wait_request(void* request, void* status) {
  TestFn test = p_test();
  return wait_for([&](int* flag) { return test(request, flag, status); });
}

int send_via(ISendFn isend, const void* buf, int count, Handle type, int dest, int tag, Handle comm) {
  Request req;
  int rc = isend(buf, count, type, dest, tag, comm, req.ptr());
  if (rc != 0) return rc;
  ScratchStatus st;
  return wait_request(req.ptr(), &st);
}

// At load (above): Open MPI's engine yields when idle, unless the program
// said otherwise. Constructors run before main, on the one thread there is.
__attribute__((constructor)) void ask_mpi_to_yield() {
  constexpr const char* kParameter = "OMPI_MCA_mpi_yield_when_idle";
  if (!dlsym(RTLD_DEFAULT, "ompi_mpi_init") || getenv(kParameter)) return;
  const char* wait = getenv("BOBBIN_MPI_WAIT");
  if (wait && strcmp(wait, "mpi") == 0) return;
  setenv(kParameter, "1", 0);
}

}  // namespace

void set_mpi_wait(bool fiber_waits) { g_enabled.store(fiber_waits, memory_order_relaxed); }

}  // namespace bobbin::ult

using bobbin::ult::Handle;
namespace mw = bobbin::ult;

#define BOBBIN_MPI_EXPORT extern "C" __attribute__((visibility("default")))

BOBBIN_MPI_EXPORT int MPI_Send(const void* buf, int count, Handle type, int dest, int tag, Handle comm) {
  if (!mw::on_fiber_path()) return mw::next_send()(buf, count, type, dest, tag, comm);
  return mw::send_via(mw::p_isend(), buf, count, type, dest, tag, comm);
}

BOBBIN_MPI_EXPORT int MPI_Ssend(const void* buf, int count, Handle type, int dest, int tag, Handle comm) {
  if (!mw::on_fiber_path()) return mw::next_ssend()(buf, count, type, dest, tag, comm);
  return mw::send_via(mw::p_issend(), buf, count, type, dest, tag, comm);
}

BOBBIN_MPI_EXPORT int MPI_Recv(void* buf, int count, Handle type, int source, int tag, Handle comm, void* status) {
  if (!mw::on_fiber_path()) return mw::next_recv()(buf, count, type, source, tag, comm, status);
  mw::Request req;
  int rc = mw::p_irecv()(buf, count, type, source, tag, comm, req.ptr());
  if (rc != 0) return rc;
  return mw::wait_request(req.ptr(), status);
}

BOBBIN_MPI_EXPORT int MPI_Sendrecv(const void* sendbuf, int sendcount, Handle sendtype, int dest, int sendtag,
                                   void* recvbuf, int recvcount, Handle recvtype, int source, int recvtag,
                                   Handle comm, void* status) {
  if (!mw::on_fiber_path())
    return mw::next_sendrecv()(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                               recvtag, comm, status);
  mw::Request rreq, sreq;
  int rc = mw::p_irecv()(recvbuf, recvcount, recvtype, source, recvtag, comm, rreq.ptr());
  if (rc != 0) return rc;
  rc = mw::p_isend()(sendbuf, sendcount, sendtype, dest, sendtag, comm, sreq.ptr());
  mw::TestFn test = mw::p_test();
  mw::ScratchStatus st;
  bool sent = rc != 0, received = false;  // a failed send still lets the receive complete, then reports
  int first = rc;
  int rc2 = mw::wait_for([&](int* flag) {
    if (!received) {
      int f = 0, e = test(rreq.ptr(), &f, status);
      if (e != 0) return e;
      received = f != 0;
    }
    if (!sent) {
      int f = 0, e = test(sreq.ptr(), &f, &st);
      if (e != 0) return e;
      sent = f != 0;
    }
    *flag = received && sent;
    return 0;
  });
  return first != 0 ? first : rc2;
}

BOBBIN_MPI_EXPORT int MPI_Wait(void* request, void* status) {
  if (!mw::on_fiber_path()) return mw::next_wait()(request, status);
  return mw::wait_request(request, status);
}

BOBBIN_MPI_EXPORT int MPI_Waitall(int count, void* requests, void* statuses) {
  if (!mw::on_fiber_path()) return mw::next_waitall()(count, requests, statuses);
  mw::TestallFn testall = mw::p_testall();
  return mw::wait_for([&](int* flag) { return testall(count, requests, flag, statuses); });
}

BOBBIN_MPI_EXPORT int MPI_Waitany(int count, void* requests, int* index, void* status) {
  if (!mw::on_fiber_path()) return mw::next_waitany()(count, requests, index, status);
  mw::TestanyFn testany = mw::p_testany();
  // Testany sets flag with index MPI_UNDEFINED when no request is active:
  // Waitany returns at once then too.
  return mw::wait_for([&](int* flag) { return testany(count, requests, index, flag, status); });
}

BOBBIN_MPI_EXPORT int MPI_Probe(int source, int tag, Handle comm, void* status) {
  if (!mw::on_fiber_path()) return mw::next_probe()(source, tag, comm, status);
  mw::IprobeFn iprobe = mw::p_iprobe();
  return mw::wait_for([&](int* flag) { return iprobe(source, tag, comm, flag, status); });
}
