/* A model of Bobbin's gang scheduling of nested parallel regions
   (scheduler/gang.cpp, rules G1-G7 of scheduler/README.md), checked by spin
   for invalid end states: a state in which no worker can move and the
   program has not finished is a deadlock. tests/model/check_gang_model.py
   runs it; tests/model/README.md says what each run shows.

   What is modelled, as the code does it:
   - Two workers. A worker runs one fiber at a time; a started fiber never
     moves to another worker.
   - Gang ids come from one counter when a gang is reserved; a gang's key
     orders it by the path of gang ids from the outermost gang (key_before
     in gang.cpp), and "precedes" is "<" on keys. The outer team is level 1
     and not a gang; its gangs are level 2, their sub-gangs level 3.
   - Reservation (reserve_gang_locked): the creator's worker plus the other
     worker, unless the other hosts one of the creator's enclosing gangs
     (G6) or a gang the new one precedes (G7); hosting counts started,
     unfinished fibers and entered masters (`active`), members reserved and
     not started, and masters still in their fork. A gang never has more
     members than workers (G1 with dyn-var true: the region gets fewer
     threads). Taking the id, choosing the workers and queueing the member
     are one step (G2: all under the reservation lock).
   - Per worker: `active` (keys of the gang fibers started and unfinished
     there, and of the gangs whose master entered them there), the ordered
     queue of reserved, not-started members (lowest key first), and the FIFO
     of started, ready fibers.
   - pop_ready: the head of the ordered queue if may_start allows it (no key
     active on the worker precedes it, G3), else the FIFO's front. The idle
     loop tries pop_ready, then steals from the other worker's ordered queue
     the first not-started member that claim_for_steal allows (G5: the thief
     hosts no gang); else it waits.
   - The fork (run_earlier_gangs, G4): while the lowest startable key queued
     on the master's worker precedes the new gang's, yield; while a fiber of
     an earlier gang that is not one of the master's enclosing gangs is
     active there, yield if there is something to switch to, else spin
     holding the worker; then enter the gang (gang_master_enter: its key is
     active there until the master's join ends).
   - Runtime waits (omp barrier, the master's join, the outer team's join)
     are scheduling points: a waiting fiber yields to another ready fiber or
     parks; whoever makes its condition true makes it ready again on its
     own worker.
   - A user-written spin barrier never yields: its fiber keeps its worker
     until every thread of its team has arrived.

   Abstractions:
   - Spin-then-park is a nondeterministic choice, at each step of a runtime
     wait, between yielding and parking; a yield is modelled only when
     pop_ready would switch to another fiber (otherwise it is a spin). The
     wake-up is part of the step that makes the condition true, and a wait
     never parks with its condition already true: the park/unpark and
     WaitWord protocols that guarantee this are not re-checked here.
   - Reservation is one atomic step (gang.cpp holds every worker's gang
     lock while it chooses and records); the "least loaded" order among the
     other workers is moot with two workers. Tasks, plain (non-gang)
     fibers, steal mode and the sleeping of workers are left out: an idle
     worker with nothing it may take blocks (the real one spins or sleeps
     until work appears). A spin barrier is a blocking guard (spinning
     changes no state).
   - Every team has two threads: the master and one member fiber. The
     programs are generated in init, and spin checks all of them: the
     outer threads T0 and T1 each fork one gang (A and B); a gang's body is
     up to two operations, each an omp barrier or a spin barrier or (with
     SUBGANGS) a fork of a sub-gang (C inside A, D inside B) by the master
     or by the member, at most one fork per body; a sub-gang's body is one
     omp barrier or one spin barrier. Keys are small numbers: level * 16 +
     id.
   - Only safety is checked (invalid end states and the assertion of G1). A
     run in which fibers keep yielding to one another forever is not
     reported, but each of them can park instead, and a park that nothing
     undoes ends in an invalid end state.

   Switches (spin -DNAME=VALUE); the defaults are what gang.cpp does:
     ELIGIBILITY  4: claim_for_steal, the thief hosts no gang (default);
                  1: as before G7, no gang active on the thief precedes the
                     member's or is its gang;
                  0: no check, an idle worker steals any not-started member;
                  2: only "no earlier gang is active on the thief";
                  3: only "no fiber of the member's gang is active on the thief".
     FORK_SP      1: the fork is a scheduling point (G4, default); 0: not.
     SUBGANGS     2: the master or the member of a gang may fork a sub-gang
                  (default); 1: only the master; 0: no sub-gangs.
     KEY_ORDER    1: keys order gangs by the ids of their enclosing gangs,
                  then their own (default: a sub-gang comes right after its
                  enclosing gang, before later gangs); 0: keys are (level,
                  id), as before G7.
     G6_QUEUED    1: G6 counts members reserved and not started and masters
                  still in their fork (default); 0: it looks at `active`
                  only, as before G7.
     G7           1: a gang is not reserved a worker that hosts a gang it
                  precedes (default); 0: no such rule, as before.

   The program (outer team of two, bound: T0 on worker 0, T1 on worker 1):
     T0: fork A { body of A }; outer join (waits for T1); end
     T1: fork B { body of B }; exit
   A master runs its body, then joins its gang; a member runs the same body
   (except the fork of a sub-gang, done by one of the two), then exits.
*/

#ifndef ELIGIBILITY
#define ELIGIBILITY 4
#endif
#ifndef FORK_SP
#define FORK_SP 1
#endif
#ifndef G6_QUEUED
#define G6_QUEUED 1
#endif
#ifndef KEY_ORDER
#define KEY_ORDER 1
#endif
#ifndef G7
#define G7 1
#endif
#ifndef SUBGANGS
#define SUBGANGS 2
#endif

#define NW 2        /* workers */
#define NF 6        /* fibers */
#define NG 5        /* gang slots 1..4 (0: not a gang) */
#define MAXOPS 10
#define IDLE 255

/* fibers: the outer threads and the member fiber of each gang */
#define T0 0
#define T1 1
#define MA 2
#define MB 3
#define MC 4
#define MD 5
/* gangs: A and B at level 2 (forked by T0 and T1), C and D at level 3
   (forked inside A and B) */
#define GA 1
#define GB 2
#define GC 3
#define GD 4

/* fiber states */
#define NEW 0       /* not submitted (or never: its gang got one thread) */
#define QUEUED 1    /* reserved, in an ordered queue, not started */
#define RUN 2
#define READY 3     /* started, in its worker's FIFO */
#define PARKED 4
#define DONE 5

/* operations of a fiber's program; the argument is a gang, plus 8 times
   the barrier episode for barriers */
#define OP_FORK 1   /* reserve the gang, then G4, then enter it */
#define OP_RBAR 2   /* omp barrier (a runtime wait) */
#define OP_UBAR 3   /* user spin barrier (keeps the worker) */
#define OP_JOIN 4   /* master: wait for the member, then leave the gang */
#define OP_EXIT 5   /* a member (0: the outer thread T1) finishes */
#define OP_OJOIN 6  /* T0: the outer team's join, waits for T1 */
#define OP_END 7    /* T0 returns: the program is over */

/* body operations chosen in init */
#define B_NONE 0
#define B_RBAR 1
#define B_UBAR 2
#define B_FORK_MASTER 3
#define B_FORK_MEMBER 4

byte fst[NF];       /* fiber state */
byte fhome[NF];     /* worker of a started fiber */
byte fgang[NF];     /* gang of a member fiber (its order key's gang) */
byte pc[NF];        /* index of the current operation */
bit ph[NF];         /* 0: the operation has not begun; 1: it waits */
byte prog_op[NF * MAXOPS];
byte prog_arg[NF * MAXOPS];

byte running[NW];   /* fiber running on each worker, or IDLE */
chan fifo[NW] = [NF] of { byte };
byte ord[NW * NG];  /* ord[w*NG+g]: 1 + the member of g queued, not started, on w */
byte act[NW * NG];  /* act[w*NG+g]: g's started unfinished fibers and entered master on w */

byte gkey[NG];      /* level * 16 + id, set when reserved (KEY_ORDER: see there) */
byte glvl[NG];
byte ganc[NG];      /* the gang the creator is a member of (0: none) */
byte gmaster[NG];   /* the creator's fiber */
byte gmember[NG];   /* the member fiber */
byte gsize[NG];     /* threads the gang got (1 or 2) */
bit gforking[NG];   /* reserved, its master not yet entered */
byte rb[NG];        /* arrivals at omp barriers, all episodes */
byte ub[NG];        /* arrivals at spin barriers, all episodes */
byte jd[NG];        /* members finished */
byte next_id = 1;

#define OTHER(w) (1 - (w))
#define K(g) gkey[g]
#define ACT(w, h) (act[(w) * NG + (h)] > 0)
#define QD(w, h) (ord[(w) * NG + (h)] != 0)
#define OPOF(f) prog_op[(f) * MAXOPS + pc[f]]
#define ARGOF(f) prog_arg[(f) * MAXOPS + pc[f]]
#define GANG(a) ((a) % 8)
#define EPISODE(a) ((a) / 8)
/* the barrier episode of argument a is complete */
#define RBAR_DONE(a) (rb[GANG(a)] >= gsize[GANG(a)] * (EPISODE(a) + 1))
#define UBAR_DONE(a) (ub[GANG(a)] >= gsize[GANG(a)] * (EPISODE(a) + 1))

/* some gang active on w has a key < k (<= k) */
#define ACT_LT(w, k) ((ACT(w, 1) && K(1) < (k)) || (ACT(w, 2) && K(2) < (k)) || \
                      (ACT(w, 3) && K(3) < (k)) || (ACT(w, 4) && K(4) < (k)))
#define ACT_LE(w, k) ((ACT(w, 1) && K(1) <= (k)) || (ACT(w, 2) && K(2) <= (k)) || \
                      (ACT(w, 3) && K(3) <= (k)) || (ACT(w, 4) && K(4) <= (k)))

/* may_start (G3) */
#define MAY_START(w, g) (!ACT_LT(w, K(g)))

/* claim_for_steal (G5) */
#if ELIGIBILITY == 4
#define ELIGIBLE(w, g) (!HOSTED(w, 1) && !HOSTED(w, 2) && !HOSTED(w, 3) && !HOSTED(w, 4))
#elif ELIGIBILITY == 1
#define ELIGIBLE(w, g) (!ACT_LE(w, K(g)))
#elif ELIGIBILITY == 2
#define ELIGIBLE(w, g) (!ACT_LT(w, K(g)))
#elif ELIGIBILITY == 3
#define ELIGIBLE(w, g) (!ACT(w, g))
#else
#define ELIGIBLE(w, g) true
#endif

/* g's member is the head of w's ordered queue (keys are distinct) */
#define BEFORE_IN_QUEUE(w, h, g) (QD(w, h) && K(h) < K(g))
#define IS_HEAD(w, g) (QD(w, g) && !BEFORE_IN_QUEUE(w, 1, g) && !BEFORE_IN_QUEUE(w, 2, g) && \
                       !BEFORE_IN_QUEUE(w, 3, g) && !BEFORE_IN_QUEUE(w, 4, g))
#define HEAD_OK(w, g) (IS_HEAD(w, g) && MAY_START(w, g))
#define HEAD_STARTABLE(w) (HEAD_OK(w, 1) || HEAD_OK(w, 2) || HEAD_OK(w, 3) || HEAD_OK(w, 4))
/* startable_before(k): the head may start and comes before k */
#define HEAD_STARTABLE_LT(w, k) ((HEAD_OK(w, 1) && K(1) < (k)) || (HEAD_OK(w, 2) && K(2) < (k)) || \
                                 (HEAD_OK(w, 3) && K(3) < (k)) || (HEAD_OK(w, 4) && K(4) < (k)))
/* pop_ready would return a fiber */
#define CAN_POP(w) (HEAD_STARTABLE(w) || len(fifo[w]) > 0)
#define STEALABLE(w, g) (QD(OTHER(w), g) && ELIGIBLE(w, g))
#define CAN_STEAL(w) (STEALABLE(w, 1) || STEALABLE(w, 2) || STEALABLE(w, 3) || STEALABLE(w, 4))

/* h is an enclosing gang of g's master (the nesting is two deep) */
#define IS_ANC(g, h) ((h) == ganc[g])
/* run_earlier_gangs' earlier_unfinished() */
#define EARLIER(w, h, g) (ACT(w, h) && K(h) < K(g) && !IS_ANC(g, h))
#define EARLIER_UNF(w, g) (EARLIER(w, 1, g) || EARLIER(w, 2, g) || EARLIER(w, 3, g) || EARLIER(w, 4, g))

/* w hosts h (gang.cpp's `active` and `reserved` lists): h has a fiber
   there that may keep w, started and unfinished, or a master that entered
   h there (ACT), or a member reserved there and not started, or a master
   of h there still in its fork */
#define HOSTED(w, h) (ACT(w, h) || QD(w, h) || (gforking[h] && fhome[gmaster[h]] == (w)))
/* what G6 and G7 look at: all of it, or (G6_QUEUED=0) only ACT */
#if G6_QUEUED
#define HOSTS(w, h) ((h) != 0 && HOSTED(w, h))
#else
#define HOSTS(w, h) ((h) != 0 && ACT(w, h))
#endif
/* G6: w hosts g's creator's enclosing gang */
#define HOSTS_ANC(w, g) HOSTS(w, ganc[g])
/* G7: w hosts a gang that g precedes */
#define NOT_BEFORE(w, h, g) ((h) != (g) && HOSTS(w, h) && K(h) > K(g))
#if G7
#define BLOCKS(w, g) (HOSTS_ANC(w, g) || NOT_BEFORE(w, 1, g) || NOT_BEFORE(w, 2, g) || \
                      NOT_BEFORE(w, 3, g) || NOT_BEFORE(w, 4, g))
#else
#define BLOCKS(w, g) HOSTS_ANC(w, g)
#endif

/* the condition a parked fiber waits for */
#define WAIT_DONE(f) ((OPOF(f) == OP_RBAR && RBAR_DONE(ARGOF(f))) || \
                      (OPOF(f) == OP_JOIN && jd[ARGOF(f)] + 1 == gsize[ARGOF(f)]) || \
                      (OPOF(f) == OP_OJOIN && fst[T1] == DONE))

/* ---- narration (printed when spin replays a trail) ---- */
inline pf(f) {
  if
  :: f == T0 -> printf("T0")
  :: f == T1 -> printf("T1")
  :: f == MA -> printf("mA")
  :: f == MB -> printf("mB")
  :: f == MC -> printf("mC")
  :: f == MD -> printf("mD")
  fi
}
inline pg(g) {
  if
  :: g == GA -> printf("A")
  :: g == GB -> printf("B")
  :: g == GC -> printf("C")
  :: g == GD -> printf("D")
  :: else -> printf("outer")
  fi
}
#define say(text) printf("W%d: ", w); pf(f); printf(text)
#define say_g(text, g) say(text); pg(g)

/* ---- program generation ---- */
inline emit(f, op, arg) {
  prog_op[f * MAXOPS + cur[f]] = op;
  prog_arg[f * MAXOPS + cur[f]] = arg;
  cur[f]++
}
inline pick_barrier(x) {
  if
  :: x = B_RBAR
  :: x = B_UBAR
  fi
}
inline pick_op(x) {
  if
  :: x = B_NONE
  :: x = B_RBAR
  :: x = B_UBAR
#if SUBGANGS >= 1
  :: x = B_FORK_MASTER
#endif
#if SUBGANGS >= 2
  :: x = B_FORK_MEMBER
#endif
  fi
}
/* appends barrier x (if it is one) of gang g to fiber f's program */
inline emit_barrier(f, g, x) {
  if
  :: x == B_RBAR -> emit(f, OP_RBAR, g + 8 * nr[g])
  :: x == B_UBAR -> emit(f, OP_UBAR, g + 8 * nu[g])
  :: else -> skip
  fi
}
/* appends to f's program: fork sub-gang s, its body x, its join */
inline emit_fork(f, s, x) {
  emit(f, OP_FORK, s);
  emit_barrier(f, s, x);
  emit(f, OP_JOIN, s);
  gmaster[s] = f
}

proctype Worker(byte w) {
  byte f, g, h, i, o;
  do
  /* The idle loop: pop_ready, else steal an eligible not-started member. */
  :: atomic {
       running[w] == IDLE && (CAN_POP(w) || CAN_STEAL(w)) ->
       if
       :: HEAD_OK(w, 1) -> g = 1
       :: HEAD_OK(w, 2) -> g = 2
       :: HEAD_OK(w, 3) -> g = 3
       :: HEAD_OK(w, 4) -> g = 4
       :: else -> g = 0
       fi;
       if
       :: g != 0 ->
          f = ord[w * NG + g] - 1;
          ord[w * NG + g] = 0;
          say_g(" starts (member of ", g); printf(")\n")
       :: g == 0 && len(fifo[w]) > 0 ->
          fifo[w]?f;
          say(" resumes\n")
       :: g == 0 && len(fifo[w]) == 0 ->
          /* steal_unstarted scans the ordered queue from its head */
          o = OTHER(w);
          h = 1;
          do
          :: h < NG ->
             if
             :: STEALABLE(w, h) && (g == 0 || K(h) < K(g)) -> g = h
             :: else -> skip
             fi;
             h++
          :: else -> break
          od;
          f = ord[o * NG + g] - 1;
          ord[o * NG + g] = 0;
          say_g(" is stolen from the other worker and starts (member of ", g); printf(")\n")
       fi;
       if
       :: fst[f] == QUEUED ->
          /* Worker::run of a not-started fiber: keyed_started */
          fhome[f] = w;
          act[w * NG + fgang[f]]++;
#if ELIGIBILITY == 1 || ELIGIBILITY == 3 || ELIGIBILITY == 4
          assert(act[w * NG + fgang[f]] == 1);  /* G1 */
#endif
       :: else -> skip
       fi;
       fst[f] = RUN;
       running[w] = f;
       f = 0; g = 0; h = 0; o = 0
     }
  :: atomic { running[w] == IDLE && fst[T0] == DONE -> break }
  /* One step of the fiber running on w. */
  :: atomic {
       running[w] != IDLE ->
       f = running[w];
       g = ARGOF(f);
       if
       :: OPOF(f) == OP_FORK && ph[f] == 0 ->
          /* reserve_gang: the id, the workers, the member queued (G1, G2, G6) */
#if KEY_ORDER
          /* (enclosing gang's id, own id): ids stay below 16 */
          gkey[g] = (glvl[g] == 2 -> next_id * 16 : gkey[ganc[g]] + next_id);
#else
          gkey[g] = glvl[g] * 16 + next_id;
#endif
          next_id++;
          o = OTHER(w);
          if
          :: BLOCKS(o, g) ->
             gsize[g] = 1;
             say_g(" reserves gang ", g); printf(" (key %d): one thread, the other worker hosts its enclosing gang\n", K(g))
          :: else ->
             gsize[g] = 2;
             ord[o * NG + g] = gmember[g] + 1;
             fst[gmember[g]] = QUEUED;
             say_g(" reserves gang ", g); printf(" (key %d): member ", K(g)); pf(gmember[g]); printf(" queued on W%d\n", o)
          fi;
          gforking[g] = 1;
          ph[f] = 1
       :: OPOF(f) == OP_FORK && ph[f] == 1 ->
#if FORK_SP
          /* run_earlier_gangs (G4); blocks (spins) when it can neither
             yield nor enter */
          if
          :: HEAD_STARTABLE_LT(w, K(g)) ->
             say(" yields at the fork to an earlier gang's member\n");
             fst[f] = READY; fifo[w]!f; running[w] = IDLE
          :: !HEAD_STARTABLE_LT(w, K(g)) && EARLIER_UNF(w, g) && CAN_POP(w) ->
             say(" yields at the fork: an earlier gang is unfinished here\n");
             fst[f] = READY; fifo[w]!f; running[w] = IDLE
          :: !HEAD_STARTABLE_LT(w, K(g)) && !EARLIER_UNF(w, g) ->
             act[w * NG + g]++;  /* gang_master_enter */
             gforking[g] = 0;
             say_g(" enters gang ", g); printf("\n");
             pc[f]++; ph[f] = 0
          fi
#else
          act[w * NG + g]++;
          gforking[g] = 0;
          say_g(" enters gang ", g); printf("\n");
          pc[f]++; ph[f] = 0
#endif
       :: OPOF(f) == OP_RBAR && ph[f] == 0 ->
          rb[GANG(g)]++;
          say_g(" arrives at an omp barrier of ", GANG(g)); printf("\n");
          ph[f] = 1;
          i = 0;
          do
          :: i < NF ->
             if
             :: fst[i] == PARKED && WAIT_DONE(i) ->
                fst[i] = READY; fifo[fhome[i]]!i
             :: else -> skip
             fi;
             i++
          :: else -> break
          od;
          i = 0
       :: OPOF(f) == OP_UBAR && ph[f] == 0 ->
          ub[GANG(g)]++;
          say_g(" spins at a spin barrier of ", GANG(g)); printf("\n");
          ph[f] = 1
       :: OPOF(f) == OP_UBAR && ph[f] == 1 && UBAR_DONE(g) ->
          /* the only branch for a spinning fiber: it keeps its worker */
          pc[f]++; ph[f] = 0
       :: (OPOF(f) == OP_RBAR && ph[f] == 1) || OPOF(f) == OP_JOIN || OPOF(f) == OP_OJOIN ->
          /* a runtime wait: go on, yield, or park */
          if
          :: WAIT_DONE(f) ->
             if
             :: OPOF(f) == OP_JOIN ->
                act[w * NG + g]--;  /* gang_master_leave */
                say_g(" leaves gang ", g); printf("\n")
             :: else -> skip
             fi;
             pc[f]++; ph[f] = 0
          :: !WAIT_DONE(f) && CAN_POP(w) ->
             say(" yields at a runtime wait\n");
             fst[f] = READY; fifo[w]!f; running[w] = IDLE
          :: !WAIT_DONE(f) ->
             say(" parks at a runtime wait\n");
             fst[f] = PARKED; running[w] = IDLE
          fi
       :: OPOF(f) == OP_EXIT || OPOF(f) == OP_END ->
          if
          :: OPOF(f) == OP_EXIT && g != 0 ->
             jd[g]++;
             act[w * NG + g]--  /* keyed_finished */
          :: else -> skip
          fi;
          say(" finishes\n");
          fst[f] = DONE;
          running[w] = IDLE;
          i = 0;
          do
          :: i < NF ->
             if
             :: fst[i] == PARKED && WAIT_DONE(i) ->
                fst[i] = READY; fifo[fhome[i]]!i
             :: else -> skip
             fi;
             i++
          :: else -> break
          od;
          i = 0
       fi;
       f = 0; g = 0; o = 0
     }
  od
}

init {
  byte cur[NF];     /* write position in each fiber's program */
  byte nr[NG];      /* omp barrier episodes emitted per gang */
  byte nu[NG];      /* spin barrier episodes emitted per gang */
  byte x, y, z, j, lvl1, sub, master, member, smember;
  atomic {
    glvl[GA] = 2; gmember[GA] = MA; fgang[MA] = GA; gmaster[GA] = T0;
    glvl[GB] = 2; gmember[GB] = MB; fgang[MB] = GB; gmaster[GB] = T1;
    glvl[GC] = 3; gmember[GC] = MC; fgang[MC] = GC; ganc[GC] = GA;
    glvl[GD] = 3; gmember[GD] = MD; fgang[MD] = GD; ganc[GD] = GB;
    emit(T0, OP_FORK, GA);
    emit(T1, OP_FORK, GB);
    /* the bodies of A and B: two operations each, at most one fork */
    lvl1 = GA;
    do
    :: lvl1 <= GB ->
       master = gmaster[lvl1];
       member = gmember[lvl1];
       sub = lvl1 + 2;
       smember = gmember[sub];
       j = 0;
       y = 0;  /* forks so far */
       do
       :: j < 2 ->
          if
          :: y == 0 -> pick_op(x)
          :: else -> if :: x = B_NONE :: pick_barrier(x) fi
          fi;
          if
          :: x == B_FORK_MASTER || x == B_FORK_MEMBER ->
             y++;
             pick_barrier(z);
             if
             :: x == B_FORK_MASTER -> emit_fork(master, sub, z)
             :: else -> emit_fork(member, sub, z)
             fi;
             emit_barrier(smember, sub, z);
             emit(smember, OP_EXIT, sub)
          :: else ->
             emit_barrier(master, lvl1, x);
             emit_barrier(member, lvl1, x);
             if
             :: x == B_RBAR -> nr[lvl1]++
             :: x == B_UBAR -> nu[lvl1]++
             :: else -> skip
             fi
          fi;
          j++
       :: else -> break
       od;
       emit(master, OP_JOIN, lvl1);
       emit(member, OP_EXIT, lvl1);
       lvl1++
    :: else -> break
    od;
    emit(T0, OP_OJOIN, 0);
    emit(T0, OP_END, 0);
    emit(T1, OP_EXIT, 0);
    /* print the program */
    j = 0;
    do
    :: j < NF ->
       if
       :: prog_op[j * MAXOPS] != 0 ->
          pf(j); printf(":");
          x = 0;
          do
          :: x < MAXOPS && prog_op[j * MAXOPS + x] != 0 ->
             y = prog_op[j * MAXOPS + x];
             z = prog_arg[j * MAXOPS + x];
             if
             :: y == OP_FORK -> printf(" fork ")
             :: y == OP_RBAR -> printf(" omp-barrier ")
             :: y == OP_UBAR -> printf(" spin-barrier ")
             :: y == OP_JOIN -> printf(" join ")
             :: y == OP_EXIT -> printf(" exit ")
             :: y == OP_OJOIN -> printf(" outer-join")
             :: y == OP_END -> printf(" end")
             fi;
             if
             :: y != OP_OJOIN && y != OP_END -> pg(GANG(z))
             :: else -> skip
             fi;
             printf(";");
             x++
          :: else -> break
          od;
          printf("\n")
       :: else -> skip
       fi;
       j++
    :: else -> break
    od;
    /* the outer team: thread i is bound to worker i */
    fst[T0] = RUN; fhome[T0] = 0; running[0] = T0;
    fst[T1] = RUN; fhome[T1] = 1; running[1] = T1;
    x = 0; y = 0; z = 0; j = 0; lvl1 = 0; sub = 0; master = 0; member = 0; smember = 0;
    j = 0;
    do
    :: j < NF -> cur[j] = 0; j++
    :: else -> break
    od;
    j = 0;
    do
    :: j < NG -> nr[j] = 0; nu[j] = 0; j++
    :: else -> break
    od;
    j = 0;
    run Worker(0);
    run Worker(1)
  }
}
