// Preemption of a fiber that keeps its worker while others wait for it
// (preempt_linux.cpp has the mechanism and what makes a point safe).
#pragma once

namespace bobbin::ult {

class Worker;

// False in builds where the signal cannot be handled at the interrupted
// point (ThreadSanitizer).
bool preemption_available();
// Installs the SIGURG handler (chaining to the program's own) and the table
// of user-code ranges. Idempotent.
void install_preemption();
// Unblocks the preemption signal on the calling thread (a worker's or a
// spare's, as it starts): it inherits its creator's mask, and a program
// that blocks SIGURG in its own thread must not make its workers immune.
void allow_preemption_signal();
// Rebuilds the table of user-code ranges if objects were loaded since.
void refresh_user_code_ranges();
// Asks w's thread to preempt its running fiber, and with `report` to give
// it to the `rescued` hook; false if it cannot be asked.
bool send_preemption(Worker& w, bool report);
// Asks w's thread to give its processor to another thread that waits for
// it (sched_yield in the handler, then the interrupted code goes on); false
// if it cannot be asked.
bool send_turn_end(Worker& w);
// Asks w's thread where its running fiber is (Worker::request_look), for
// the test of a spin at the end of the fiber's turn; false if the signal
// cannot be sent.
bool send_look(Worker& w);
// Whether the preemption signal may reach w's thread without the program
// seeing it: the thread runs, or it sleeps in a call the kernel restarts
// after a handler (a read from a pipe, a futex wait without a timeout, ...),
// or in one of the runtime's own waits (Worker::in_signal_safe_wait). A
// call the kernel ends with EINTR instead (poll, select, epoll_wait, a
// sleep, a timed wait, a socket with a timeout) would return EINTR to a
// program that installed no handler: a kernel-thread runtime never does
// that to it.
bool signal_unseen(const Worker& w);
// How many of the monitor's preemption signals the calling thread has
// taken. A call the signal interrupted with EINTR that the kernel does not
// restart (a sleep) compares it before and after, and goes on sleeping if
// the signal was only this one (block_linux.cpp).
unsigned preemption_signals_taken();

}  // namespace bobbin::ult
