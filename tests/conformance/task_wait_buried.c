/* A thread waiting inside an explicit tied task may run only that task's
   descendants, and the one it needs may lie in its own task list under
   newer tasks it may not run. The owner's pop used to look at the newest
   task only, so it found nothing and spun; in a team wider than the machine
   run as fibers all on one worker, nobody else could take those tasks
   either, and the program hung (reduced from a random program, seed 22 of
   tests/fuzz: an ordered loop whose iterations open taskgroups of taskloops,
   untied tasks, a detached task and undeferred tasks). The values are the
   generator's (tasks run when created), which every legal schedule gives. */
#include "check.h"
#include <omp.h>
#include <stdio.h>

#define X(v) ((unsigned long long)(v))

static unsigned long long acc[4];

int main(void) {
  #pragma omp taskgroup
  {
    {
      unsigned long long r5 = 3;
      unsigned long long ord4 = 7;
      #pragma omp parallel num_threads(4)
      {
        #pragma omp for schedule(dynamic, 2) ordered reduction(*: r5)
        for (long long i3 = 30LL; i3 < 75LL; i3 += 5) {
          #pragma omp ordered
          ord4 = ord4 * 31ull + (X(i3) * 46ull + 431ull);
          #pragma omp taskgroup
          {
            {
              unsigned long long r7 = 0;
              #pragma omp taskloop grainsize(5) reduction(+: r7) firstprivate(i3)
              for (long i6 = -4; i6 < 19; i6++) {
                #pragma omp taskgroup
                {
                  #pragma omp task untied firstprivate(i3, i6)
                  {
                    {
                      #pragma omp taskloop num_tasks(3) firstprivate(i3, i6)
                      for (long long i9 = 11LL; i9 > 10LL; i9--) {
                        {
                          omp_event_handle_t ev10;
                          #pragma omp task detach(ev10) firstprivate(i3, i6, i9)
                          {
                            {
                              char d11[1];
                              (void)d11;
                              unsigned long long d11_v0 = 1;
                              #pragma omp task depend(out: d11[0]) shared(d11_v0) firstprivate(i3, i6, i9)
                              {
                                d11_v0 = d11_v0 * 3ull + 87;
                              }
                              #pragma omp taskwait
                              #pragma omp atomic
                              acc[0] += d11_v0;
                            }
                          }
                          omp_fulfill_event(ev10);
                        }
                        #pragma omp task if(0) mergeable firstprivate(i3, i6, i9)
                        {
                          {
                            #pragma omp taskloop num_tasks(9) priority(1) firstprivate(i3, i6, i9)
                            for (int i15 = -11; i15 < 174; i15 += 5) {
                            }
                          }
                        }
                      }
                    }
                    {
                      #pragma omp taskloop num_tasks(5) nogroup untied firstprivate(i3, i6)
                      for (unsigned i16 = 27u; i16 < 28u; i16++) {
                      }
                      #pragma omp taskwait
                    }
                  }
                }
                #pragma omp task untied priority(1) firstprivate(i3, i6)
                {
                }
              }
              #pragma omp atomic
              acc[0] += r7;
            }
          }
        }
      }
      #pragma omp atomic
      acc[0] += r5;
      #pragma omp atomic
      acc[3] += ord4;
    }
  }
  CHECK(acc[0] == 18633ull, "acc[0]: got %llu, want 18633ull", (unsigned long long)acc[0]);
  CHECK(acc[3] == 1787906005220356ull, "acc[3]: got %llu, want 1787906005220356ull", (unsigned long long)acc[3]);
  return conf_end();
}
