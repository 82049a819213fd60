#!/usr/bin/env python3
"""Random OpenMP C programs whose output does not depend on scheduling or
team sizes, with the output they must print.

    gen.py SEED                 the program on stdout
    gen.py SEED -o prog.c       the program, and prog.expected beside it
    gen.py SEED --conformance   a tests/conformance program (check.h, conf_end)

How a program stays deterministic. Every statement runs in one of two
contexts. In a *team* context (the body of a parallel region) each thread of
the team runs the statement, so the number of runs depends on the team size;
such statements only ever reach the output through constructs that run their
body once per team: a worksharing loop (each iteration once), single,
masked, sections, a reduction. In a *once* context (main, a loop iteration,
a single, a task, a section) the statement runs once each time its context
does; only once contexts write the output. What they write is commutative
(atomic adds, adds under a critical or a lock, reductions), or ordered by the
construct under test (ordered, a dependence chain, lastprivate,
copyprivate), so any legal schedule gives one answer. The generator computes
that answer by interpreting the same tree with a team of one thread and every
task run when it is created, which is one of the legal schedules.

The tree: a `Block` is a list of statements; every statement has an id, and
`render(removed=ids)` prints the program without those statements (and
computes the output of what remains), which is what the reducer shrinks over.

Exclusions (each a miscompilation or a missing feature of clang 14 or gcc
12; see README.md): no task_reduction, in_reduction or taskloop reduction in
an untied task; at most one loop whose body has a task scheduling point per
untied task; `loop` only for gcc (clang 14 lets every thread run all the
iterations); `scope` only for gcc (clang 14 lacks it); `inoutset` is written
`inout` for these compilers (neither parses it).
"""
import argparse
import random
import sys

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1

# The output variables. Each kind of update has its own, so that no variable
# is written both atomically and under a lock (a data race).
ACC_ATOMIC = 4   # acc[k]: #pragma omp atomic
ACC_CRIT = 2     # crit[k]: critical(c0), unnamed critical
ACC_LOCK = 1     # lck: omp_lock_t
ACC_NEST = 1     # nlk: omp_nest_lock_t, taken twice
ACC_32 = 2       # acc32[k]: unsigned int, atomic, wraps mod 2^32

SCHEDULES = ['', 'static', 'static, 1', 'static, 3', 'dynamic', 'dynamic, 2', 'guided', 'guided, 3',
             'auto', 'runtime', 'monotonic: dynamic', 'monotonic: dynamic, 3', 'nonmonotonic: dynamic',
             'nonmonotonic: guided, 2']
# lastprivate only under a schedule libomp 14 gets right: a nonmonotonic
# dynamic loop run as static_steal loses it (tests/conformance README).
LASTPRIVATE_SCHEDULES = ['', 'static', 'static, 1', 'static, 3', 'monotonic: dynamic', 'monotonic: dynamic, 3']


class Expr:
    """(X(v1)*c1 + X(v2)*c2 + c0) over index variables, in unsigned 64 bits."""

    def __init__(self, rng, idx):
        self.terms = []
        for v in rng.sample(idx, min(len(idx), rng.randint(0, 2))):
            self.terms.append((v, rng.randint(1, 97)))
        self.c = rng.randint(1, 1000)

    def c_text(self):
        parts = ['X(%s) * %dull' % (v, c) for v, c in self.terms] + ['%dull' % self.c]
        return '(' + ' + '.join(parts) + ')'

    def value(self, env):
        s = self.c
        for v, c in self.terms:
            s += (env[v] & M64) * c
        return s & M64


class Cell:
    """A local the interpreter shares between contexts (a reduction variable,
    an ordered or lastprivate accumulator): copying an environment keeps it."""

    def __init__(self, v):
        self.v = v


class State:
    """What the interpreter tracks: the output variables and named locals."""

    def __init__(self):
        self.out = {}

    def add(self, name, v, mask=M64):
        self.out[name] = (self.out.get(name, 0) + v) & mask


class Ctx:
    def __init__(self, **kw):
        self.team = False        # team context (every thread runs it)
        self.level = 0           # enclosing parallel regions
        self.idx = []            # index variables in scope
        self.untied = False      # directly in an untied task's body
        self.sched_loops = [1]   # untied: loops with a scheduling point still allowed (shared by the task's contexts)
        self.no_sched = False    # no task scheduling point allowed (critical-free leaf code)
        self.red = None          # (name, op): a reduction's private copy, usable directly
        self.ordered = None      # name of the ordered accumulator, directly in an ordered loop's iteration
        self.lastpriv = None
        self.in_task = False
        self.final = False       # in a final task: every task below is included
        self.under_untied = False  # lexically inside an untied task (gcc: no threadprivate there)
        self.no_locals = False   # no statement that declares a local living across a task creation
        self.mult = 1            # estimated runs of this context per program run
        self.depth = 0           # statement nesting
        self.__dict__.update(kw)

    def sub(self, **kw):
        c = Ctx(**self.__dict__)
        c.depth = self.depth + 1
        c.__dict__.update(kw)
        return c


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.n = 0
        self.budget = self.rng.randint(12, 70)
        self.stmts = {}          # id -> statement
        self.threadprivates = []

    def fresh(self, p):
        self.n += 1
        return '%s%d' % (p, self.n)

    def reg(self, s):
        s.id = len(self.stmts)
        self.stmts[s.id] = s
        return s

    # ---- blocks --------------------------------------------------------
    def block(self, ctx, lo=1, hi=4):
        b = Block()
        for _ in range(self.rng.randint(lo, hi)):
            if self.budget <= 0:
                break
            s = self.team_stmt(ctx) if ctx.team else self.once_stmt(ctx)
            if s is not None:
                b.items.append(self.reg(s))
        return b

    def once_stmt(self, ctx):
        r = self.rng
        self.budget -= 1
        heavy_ok = ctx.mult < 300 and ctx.depth < 9 and not ctx.no_sched
        choices = [('add', 6)]
        if heavy_ok:
            if ctx.level < 4:
                choices += [('parallel', 4), ('parfor', 2)]
            choices += [('task', 6), ('taskgroup', 2), ('taskwait', 2), ('seqloop', 3),
                        ('chain', 3), ('taskloop', 3), ('detach', 1), ('setnum', 1),
                        ('taskyield', 1)]
            if not ctx.untied:
                # (its taskgroup holds a loop that creates tasks: see TaskGroup)
                choices += [('cancel_tg', 1)]
            if not ctx.untied:
                choices += [('taskred', 2)]
        elif not ctx.no_sched and ctx.mult < 3000:
            choices += [('seqloop', 1)]
        if ctx.no_locals:
            choices = [(k, w) for k, w in choices
                       if k in ('add', 'task', 'taskwait', 'taskyield', 'setnum', 'taskgroup', 'seqloop')]
        if ctx.no_sched:
            choices = [('add', 6)] + ([('seqloop', 1)] if ctx.mult < 3000 and ctx.depth < 9 else [])
        kind = pick(r, choices)
        if kind == 'add':
            return Add(self, ctx)
        if kind == 'parallel':
            return Parallel(self, ctx)
        if kind == 'parfor':
            return WsFor(self, ctx, combined=True)
        if kind == 'task':
            return Task(self, ctx)
        if kind == 'taskgroup':
            return TaskGroup(self, ctx)
        if kind == 'taskwait':
            return Leaf('#pragma omp taskwait')
        if kind == 'taskyield':
            return Leaf('#pragma omp taskyield')
        if kind == 'seqloop':
            return SeqLoop(self, ctx)
        if kind == 'chain':
            return DepChain(self, ctx)
        if kind == 'taskloop':
            return TaskLoop(self, ctx)
        if kind == 'detach':
            return Detach(self, ctx)
        if kind == 'setnum':
            return Leaf('omp_set_num_threads(%d);' % r.randint(1, 4))
        if kind == 'cancel_tg':
            return CancelTaskgroup(self, ctx)
        if kind == 'taskred':
            return TaskRed(self, ctx)
        raise AssertionError(kind)

    def team_stmt(self, ctx):
        r = self.rng
        self.budget -= 1
        choices = [('for', 6), ('single', 5), ('masked', 2), ('sections', 2), ('barrier', 2),
                   ('copyprivate', 1), ('cancel_for', 1), ('loop', 1),
                   ('scope', 1), ('setnum', 1), ('taskwait', 1), ('cpoint', 1)]
        if not ctx.under_untied:
            # gcc 12 rejects a threadprivate variable anywhere inside an untied task
            choices.append(('threadprivate', 1))
        kind = pick(r, choices)
        if kind == 'for':
            return WsFor(self, ctx)
        if kind == 'single':
            return Single(self, ctx)
        if kind == 'masked':
            return Masked(self, ctx)
        if kind == 'sections':
            return Sections(self, ctx)
        if kind == 'barrier':
            return Leaf('#pragma omp barrier')
        if kind == 'copyprivate':
            return CopyPrivate(self, ctx)
        if kind == 'threadprivate':
            return ThreadPrivate(self, ctx)
        if kind == 'cancel_for':
            return CancelFor(self, ctx)
        if kind == 'loop':
            return LoopConstruct(self, ctx)
        if kind == 'scope':
            return Scope(self, ctx)
        if kind == 'setnum':
            return Leaf('omp_set_num_threads(%d);' % r.randint(1, 4))
        if kind == 'taskwait':
            return Leaf('#pragma omp taskwait')
        if kind == 'cpoint':
            return Leaf('#pragma omp cancellation point parallel')
        raise AssertionError(kind)


def pick(rng, choices):
    total = sum(w for _, w in choices)
    x = rng.uniform(0, total)
    for k, w in choices:
        x -= w
        if x <= 0:
            return k
    return choices[-1][0]


class Out:
    def __init__(self, removed):
        self.lines = []
        self.ind = 1
        self.removed = removed

    def __call__(self, s):
        for line in s.split('\n'):
            self.lines.append('  ' * self.ind + line)

    def open(self, s='{'):
        self(s)
        self.ind += 1

    def close(self, s='}'):
        self.ind -= 1
        self(s)


class Block:
    def __init__(self):
        self.items = []

    def live(self, o_or_removed):
        removed = o_or_removed.removed if isinstance(o_or_removed, (Out, Interp)) else o_or_removed
        return [s for s in self.items if s.id not in removed]

    def emit(self, o):
        for s in self.live(o):
            s.emit(o)

    def run(self, it, env):
        for s in self.live(it):
            s.run(it, env)

    def stmts(self):
        return self.items


class Interp:
    def __init__(self, removed):
        self.removed = removed
        self.st = State()


class Stmt:
    id = -1

    def blocks(self):
        return []

    def team_vars(self, removed):
        """Shared variables a team statement needs declared before its region
        (name, C type, initial value) and added to the output after it."""
        return []


class Leaf(Stmt):
    def __init__(self, text):
        self.text = text

    def emit(self, o):
        o(self.text)

    def run(self, it, env):
        pass


class Add(Stmt):
    """One update of an output variable, in a way that suits the context."""

    def __init__(self, g, ctx):
        r = g.rng
        self.e = Expr(r, ctx.idx)
        kinds = [('atomic', 5), ('atomic32', 1), ('critical', 2), ('lock', 1), ('nestlock', 1)]
        if ctx.red:
            kinds.append(('red', 8))
        if ctx.ordered:
            kinds.append(('ordered', 6))
        self.kind = pick(r, kinds)
        self.red = ctx.red
        self.ordered = ctx.ordered
        if self.kind == 'ordered':
            ctx.ordered = None  # an iteration runs at most one ordered region
        self.k = r.randrange(4)

    def emit(self, o):
        e = self.e.c_text()
        k = self.kind
        if k == 'atomic':
            o('#pragma omp atomic\nacc[%d] += %s;' % (self.k % ACC_ATOMIC, e))
        elif k == 'atomic32':
            o('#pragma omp atomic update\nacc32[%d] = acc32[%d] + (unsigned)%s;' % ((self.k % ACC_32,) * 2 + (e,)))
        elif k == 'critical':
            if self.k % 2:
                o('#pragma omp critical\ncrit[1] += %s;' % e)
            else:
                o('#pragma omp critical(c0)\ncrit[0] += %s;' % e)
        elif k == 'lock':
            o('omp_set_lock(&lk);\nlck += %s;\nomp_unset_lock(&lk);' % e)
        elif k == 'nestlock':
            o('omp_set_nest_lock(&nlk);\nomp_set_nest_lock(&nlk);\nnlck += %s;\n'
              'omp_unset_nest_lock(&nlk);\nomp_unset_nest_lock(&nlk);' % e)
        elif k == 'red':
            name, op = self.red
            if op == '*':
                o('%s *= (%s | 1ull);' % (name, e))
            else:
                o('%s %s= %s;' % (name, op, e))
        elif k == 'ordered':
            o('#pragma omp ordered\n%s = %s * 31ull + %s;' % (self.ordered, self.ordered, e))

    def run(self, it, env):
        v = self.e.value(env)
        k = self.kind
        st = it.st
        if k == 'atomic':
            st.add('acc[%d]' % (self.k % ACC_ATOMIC), v)
        elif k == 'atomic32':
            st.add('acc32[%d]' % (self.k % ACC_32), v & M32, M32)
        elif k == 'critical':
            st.add('crit[%d]' % (self.k % 2), v)
        elif k == 'lock':
            st.add('lck', v)
        elif k == 'nestlock':
            st.add('nlck', v)
        elif k == 'red':
            name, op = self.red
            c = env[name]
            c.v = {'+': lambda: (c.v + v) & M64, '^': lambda: c.v ^ v, '*': lambda: (c.v * (v | 1)) & M64}[op]()
        elif k == 'ordered':
            c = env[self.ordered]
            c.v = (c.v * 31 + v) & M64


def emit_consume(o, name):
    o('#pragma omp atomic\nacc[%d] += %s;' % (hash_name(name) % ACC_ATOMIC, name))


def run_consume(it, env, name):
    it.st.add('acc[%d]' % (hash_name(name) % ACC_ATOMIC), env[name].v)


def hash_name(name):
    return sum(ord(c) * (i + 1) for i, c in enumerate(name))


class LoopHeader:
    """A canonical loop: type, bounds, step, direction; its iteration list."""

    def __init__(self, g, var, small=False):
        r = g.rng
        self.var = var
        self.type = r.choice(['int', 'long', 'unsigned', 'long long', 'int'])
        signed = not self.type.startswith('unsigned')
        hi_trip = 6 if small else 40
        trip = r.choice([0, 1, r.randint(1, hi_trip), r.randint(1, hi_trip), r.randint(2, hi_trip)])
        self.step = r.choice([1, 1, 2, 3, 5])
        base = r.randint(-30, 30) if signed else r.randint(1, 30)  # gcc 12 rejects i < 0u
        if self.type == 'long long' and r.random() < 0.3:
            base += 5000000000 * r.choice([1, -1])
        self.down = signed and r.random() < 0.3
        self.incl = trip > 0 and r.random() < 0.3
        if self.down:
            self.lo, self.hi = base - trip * self.step, base
        else:
            self.lo, self.hi = base, base + trip * self.step
        if self.incl:
            # v <= hi - step  /  v >= lo + step: the same iterations
            pass

    def lit(self, v):
        return '%d%s' % (v, 'LL' if self.type == 'long long' else ('u' if self.type == 'unsigned' else ''))

    def c_text(self):
        v, s = self.var, self.step
        if not self.down:
            cond = '%s <= %s' % (v, self.lit(self.hi - s)) if self.incl else '%s < %s' % (v, self.lit(self.hi))
            inc = '%s++' % v if s == 1 else '%s += %d' % (v, s)
            return 'for (%s %s = %s; %s; %s)' % (self.type, v, self.lit(self.lo), cond, inc)
        cond = '%s >= %s' % (v, self.lit(self.lo + s)) if self.incl else '%s > %s' % (v, self.lit(self.lo))
        dec = '%s--' % v if s == 1 else '%s -= %d' % (v, s)
        return 'for (%s %s = %s; %s; %s)' % (self.type, v, self.lit(self.hi), cond, dec)

    def values(self):
        if self.down:
            return list(range(self.hi, self.lo, -self.step))
        return list(range(self.lo, self.hi, self.step))


def iterations(hdrs):
    out = [{}]
    for h in hdrs:
        out = [dict(e, **{h.var: v}) for e in out for v in h.values()]
    return out


def fp_clause(idx):
    return ' firstprivate(%s)' % ', '.join(idx) if idx else ''


class SeqLoop(Stmt):
    def __init__(self, g, ctx):
        self.h = LoopHeader(g, g.fresh('s'), small=True)
        trips = max(1, len(self.h.values()))
        sub = ctx.sub(idx=ctx.idx + [self.h.var], mult=ctx.mult * trips, red=ctx.red, ordered=None)
        if ctx.untied and not ctx.no_sched:
            # clang 14 loses loop counters in untied tasks when several loops
            # create tasks: one such loop per untied task.
            if ctx.sched_loops[0] > 0:
                ctx.sched_loops[0] -= 1
            else:
                sub.no_sched = True
        self.body = g.block(sub, 1, 3)

    def blocks(self):
        return [self.body]

    def emit(self, o):
        o.open(self.h.c_text() + ' {')
        self.body.emit(o)
        o.close()

    def run(self, it, env):
        for v in self.h.values():
            self.body.run(it, dict(env, **{self.h.var: v}))


class Parallel(Stmt):
    def __init__(self, g, ctx):
        r = g.rng
        self.nt = r.randint(1, 3) if ctx.level > 0 else r.choice([None, None, 2, 3, 4])
        self.if0 = r.random() < 0.12
        self.bind = r.choice([None] * 6 + ['close', 'spread', 'master'])
        self.copyin = None
        if r.random() < 0.15 and not ctx.under_untied:
            self.copyin = g.fresh('tp')
            g.threadprivates.append(self.copyin)
            self.tp_val = r.randint(1, 999)
        sub = ctx.sub(team=True, level=ctx.level + 1, untied=False, sched_loops=[1], red=None, ordered=None,
                      in_task=False)
        self.body = g.block(sub, 1, 4)
        if self.copyin:
            self.body.items.append(g.reg(CopyinUse(g, sub, self.copyin)))
        self.cancel = r.random() < 0.08

    def blocks(self):
        return [self.body]

    def emit(self, o):
        tv = []
        for s in self.body.live(o):
            tv += s.team_vars(o.removed)
        o.open('{')
        for name, ctype, init in tv:
            o('%s %s = %s;' % (ctype, name, init))
        if self.copyin:
            o('%s = %d;' % (self.copyin, self.tp_val))
        cl = ''
        if self.nt:
            cl += ' num_threads(%d)' % self.nt
        if self.if0:
            cl += ' if(0)'
        if self.bind:
            cl += ' proc_bind(%s)' % self.bind
        if self.copyin:
            cl += ' copyin(%s)' % self.copyin
        o('#pragma omp parallel' + cl)
        o.open('{')
        self.body.emit(o)
        if self.cancel:
            # All tasks are done at the barrier; nothing is left to skip.
            o('#pragma omp barrier')
            o('if (omp_get_thread_num() == 0)')
            o.open('{')
            o('#pragma omp cancel parallel')
            o.close()
        o.close()
        for name, _, _ in tv:
            emit_consume(o, name)
        o.close()

    def run(self, it, env):
        tv = []
        for s in self.body.live(it):
            tv += s.team_vars(it.removed)
        e = dict(env)
        for name, _, init in tv:
            e[name] = Cell(int(init))
        if self.copyin:
            e[self.copyin] = self.tp_val
        self.body.run(it, e)
        for name, _, _ in tv:
            run_consume(it, e, name)


class CopyinUse(Stmt):
    def __init__(self, g, ctx, tp):
        self.tp = tp
        self.h = LoopHeader(g, g.fresh('i'))

    def emit(self, o):
        o('#pragma omp for')
        o.open(self.h.c_text() + ' {')
        o('#pragma omp atomic\nacc[3] += X(%s) * X(%s);' % (self.tp, self.h.var))
        o.close()

    def run(self, it, env):
        for v in self.h.values():
            it.st.add('acc[3]', (env[self.tp] * (v & M64)) & M64)


class WsFor(Stmt):
    """A worksharing loop (or, combined, a parallel for in a once context)."""

    def __init__(self, g, ctx, combined=False):
        r = g.rng
        self.combined = combined
        self.nt = r.randint(1, 3) if combined else None
        self.collapse = r.random() < 0.25
        self.hdrs = [LoopHeader(g, g.fresh('i'), small=self.collapse)]
        if self.collapse:
            h2 = LoopHeader(g, g.fresh('j'), small=True)
            self.hdrs.append(h2)
        self.ordered = g.fresh('ord') if r.random() < 0.2 else None
        # lastprivate of a loop without iterations leaves the variable
        # unspecified (libgomp writes its uninitialised private copy)
        self.lastpriv = g.fresh('lp') if r.random() < 0.25 and iterations(self.hdrs) else None
        sch = LASTPRIVATE_SCHEDULES if self.lastpriv else SCHEDULES
        if self.ordered:
            sch = [s for s in sch if not s.startswith('nonmonotonic')]
        self.sched = r.choice(sch)
        self.red = None
        if r.random() < 0.3:
            self.red = (g.fresh('r'), r.choice(['+', '+', '^', '*']))
        self.nowait = not combined and r.random() < 0.3
        trips = max(1, len(iterations(self.hdrs)))
        level = ctx.level + 1 if combined else ctx.level
        sub = ctx.sub(team=False, level=level, idx=ctx.idx + [h.var for h in self.hdrs],
                      mult=ctx.mult * trips, red=self.red, ordered=self.ordered, untied=False,
                      sched_loops=[1], in_task=False, no_sched=False)
        self.body = g.block(sub, 1, 3)
        if sub.ordered:
            a = Add(g, sub)
            a.kind, a.ordered = 'ordered', self.ordered
            self.body.items.insert(0, g.reg(a))
        self.lp_e = Expr(r, sub.idx)

    def blocks(self):
        return [self.body]

    def team_vars(self, removed):
        tv = []
        if self.red:
            tv.append((self.red[0], 'unsigned long long', '3' if self.red[1] == '*' else '0'))
        if self.lastpriv:
            tv.append((self.lastpriv, 'unsigned long long', '0'))
        if self.ordered:
            tv.append((self.ordered, 'unsigned long long', '7'))
        return tv

    def clauses(self):
        cl = ''
        if self.sched:
            cl += ' schedule(%s)' % self.sched
        if self.collapse:
            cl += ' collapse(2)'
        if self.ordered:
            cl += ' ordered'
        if self.red:
            cl += ' reduction(%s: %s)' % (self.red[1], self.red[0])
        if self.lastpriv:
            cl += ' lastprivate(%s)' % self.lastpriv
        if self.nowait:
            cl += ' nowait'
        return cl

    def emit(self, o):
        tv = self.team_vars(o.removed)
        if self.combined:
            o.open('{')
            for name, ctype, init in tv:
                o('%s %s = %s;' % (ctype, name, init))
            o('#pragma omp parallel for num_threads(%d)%s' % (self.nt, self.clauses()))
        else:
            o('#pragma omp for' + self.clauses())
        for h in self.hdrs[:-1]:
            o(h.c_text())
        o.open(self.hdrs[-1].c_text() + ' {')
        if self.lastpriv:
            o('%s = %s;' % (self.lastpriv, self.lp_e.c_text()))
        self.body.emit(o)
        o.close()
        if self.combined:
            for name, _, _ in tv:
                emit_consume(o, name)
            o.close()

    def run(self, it, env):
        e = env
        if self.combined:
            e = dict(env)
            for name, _, init in self.team_vars(it.removed):
                e[name] = Cell(int(init))
        for iv in iterations(self.hdrs):
            ie = dict(e, **iv)
            if self.lastpriv:
                e[self.lastpriv].v = self.lp_e.value(ie)
            self.body.run(it, ie)
        if self.combined:
            for name, _, _ in self.team_vars(it.removed):
                run_consume(it, e, name)


def once_sub(ctx, **kw):
    d = dict(team=False, red=None, ordered=None)
    d.update(kw)
    return ctx.sub(**d)


class Single(Stmt):
    def __init__(self, g, ctx):
        self.nowait = g.rng.random() < 0.3
        self.body = g.block(once_sub(ctx), 1, 4)

    def blocks(self):
        return [self.body]

    def emit(self, o):
        o('#pragma omp single' + (' nowait' if self.nowait else ''))
        o.open('{')
        self.body.emit(o)
        o.close()

    def run(self, it, env):
        self.body.run(it, dict(env))


class Masked(Stmt):
    def __init__(self, g, ctx):
        self.form = g.rng.choice(['master', 'masked', 'masked filter(0)', 'tid0'])
        self.body = g.block(once_sub(ctx), 1, 3)

    def blocks(self):
        return [self.body]

    def emit(self, o):
        if self.form == 'tid0':
            o('if (omp_get_thread_num() == 0)')
        else:
            o('#pragma omp %s' % self.form)
        o.open('{')
        self.body.emit(o)
        o.close()

    def run(self, it, env):
        self.body.run(it, dict(env))


class Sections(Stmt):
    def __init__(self, g, ctx):
        self.nowait = g.rng.random() < 0.3
        self.parts = [g.block(once_sub(ctx), 1, 2) for _ in range(g.rng.randint(1, 3))]

    def blocks(self):
        return self.parts

    def emit(self, o):
        o('#pragma omp sections' + (' nowait' if self.nowait else ''))
        o.open('{')
        for p in self.parts:
            o('#pragma omp section')
            o.open('{')
            p.emit(o)
            o.close()
        o.close()

    def run(self, it, env):
        for p in self.parts:
            p.run(it, dict(env))


class CopyPrivate(Stmt):
    def __init__(self, g, ctx):
        self.v = g.fresh('cp')
        self.e = Expr(g.rng, ctx.idx)
        self.h = LoopHeader(g, g.fresh('i'))

    def emit(self, o):
        o.open('{')
        o('unsigned long long %s = 0;' % self.v)
        o('#pragma omp single copyprivate(%s)' % self.v)
        o('%s = %s;' % (self.v, self.e.c_text()))
        o('#pragma omp for')
        o.open(self.h.c_text() + ' {')
        o('#pragma omp atomic\nacc[2] += %s + X(%s);' % (self.v, self.h.var))
        o.close()
        o.close()

    def run(self, it, env):
        c = self.e.value(env)
        for v in self.h.values():
            it.st.add('acc[2]', (c + (v & M64)) & M64)


class ThreadPrivate(Stmt):
    def __init__(self, g, ctx):
        self.v = g.fresh('tp')
        g.threadprivates.append(self.v)
        self.val = g.rng.randint(1, 999)
        self.h = LoopHeader(g, g.fresh('i'))

    def emit(self, o):
        o('%s = %d;' % (self.v, self.val))
        o('#pragma omp for')
        o.open(self.h.c_text() + ' {')
        o('#pragma omp atomic\nacc[1] += X(%s) * X(%s);' % (self.v, self.h.var))
        o.close()

    def run(self, it, env):
        for v in self.h.values():
            it.st.add('acc[1]', (self.val * (v & M64)) & M64)


class CancelFor(Stmt):
    """A static loop cancelled part way; what it did goes to a sink that is
    not printed (cancellation may be off, and what ran is unspecified)."""

    def __init__(self, g, ctx):
        self.h = LoopHeader(g, g.fresh('i'))
        vals = self.h.values()
        self.at = g.rng.choice(vals) if vals else 0

    def emit(self, o):
        o('#pragma omp for schedule(static)')
        o.open(self.h.c_text() + ' {')
        o('#pragma omp atomic\nsink += X(%s);' % self.h.var)
        o('if (%s == %s)' % (self.h.var, self.h.lit(self.at)))
        o.open('{')
        o('#pragma omp cancel for')
        o.close()
        o('#pragma omp cancellation point for')
        o.close()

    def run(self, it, env):
        pass


class LoopConstruct(Stmt):
    def __init__(self, g, ctx):
        self.r = g.fresh('r')
        self.h = LoopHeader(g, g.fresh('i'))
        self.e = Expr(g.rng, ctx.idx + [self.h.var])

    def team_vars(self, removed):
        return [(self.r, 'unsigned long long', '0')]

    def emit(self, o):
        # clang 14 lets every thread run all of a loop construct's iterations.
        o('#ifdef __clang__\n#pragma omp for reduction(+: %s)\n#else\n#pragma omp loop reduction(+: %s)\n#endif'
          % (self.r, self.r))
        o.open(self.h.c_text() + ' {')
        o('%s += %s;' % (self.r, self.e.c_text()))
        o.close()

    def run(self, it, env):
        for v in self.h.values():
            env[self.r].v = (env[self.r].v + self.e.value(dict(env, **{self.h.var: v}))) & M64


class Scope(Stmt):
    def __init__(self, g, ctx):
        self.r = g.fresh('r')
        self.h = LoopHeader(g, g.fresh('i'))
        self.e = Expr(g.rng, ctx.idx + [self.h.var])

    def team_vars(self, removed):
        return [(self.r, 'unsigned long long', '0')]

    def emit(self, o):
        # clang 14 has no scope directive: the loop takes the reduction.
        o('#ifdef __clang__\n#pragma omp for reduction(+: %s)\n#else\n#pragma omp scope reduction(+: %s)\n#endif'
          % (self.r, self.r))
        o.open('{')
        o('#ifndef __clang__\n#pragma omp for\n#endif')
        o.open(self.h.c_text() + ' {')
        o('%s += %s;' % (self.r, self.e.c_text()))
        o.close()
        o.close()

    def run(self, it, env):
        for v in self.h.values():
            env[self.r].v = (env[self.r].v + self.e.value(dict(env, **{self.h.var: v}))) & M64


def task_ctx(ctx, untied, mult=1):
    return ctx.sub(team=False, untied=untied, sched_loops=[1], red=None, ordered=None, in_task=True, no_locals=False,
                   no_sched=False, mult=ctx.mult * mult, under_untied=ctx.under_untied or untied)


class Task(Stmt):
    def __init__(self, g, ctx):
        r = g.rng
        self.untied = r.random() < 0.35
        self.if0 = r.random() < 0.12
        self.final = r.random() < 0.12
        self.prio = r.randint(0, 5) if r.random() < 0.25 else None
        self.mergeable = r.random() < 0.12
        self.idx = list(ctx.idx)
        sub = task_ctx(ctx, self.untied)
        sub.final = ctx.final or self.final
        self.body = g.block(sub, 1, 4)

    def blocks(self):
        return [self.body]

    def emit(self, o):
        cl = ''
        if self.untied:
            cl += ' untied'
        if self.if0:
            cl += ' if(0)'
        if self.final:
            cl += ' final(1)'
        if self.prio is not None:
            cl += ' priority(%d)' % self.prio
        if self.mergeable:
            cl += ' mergeable'
        o('#pragma omp task' + cl + fp_clause(self.idx))
        o.open('{')
        self.body.emit(o)
        o.close()

    def run(self, it, env):
        self.body.run(it, dict(env))


class TaskGroup(Stmt):
    def __init__(self, g, ctx):
        sub = ctx.sub(red=None, ordered=None)
        if ctx.untied:
            # clang 14 miscompiles a taskgroup in an untied task that holds a
            # local living across a task creation: a loop counter (it
            # crashes at -O0; at -O2 libomp 14 segfaults), a detach event
            # handle, a dependence chain's values. No such local in it.
            sub.sched_loops = [0]
            sub.no_locals = True
        self.body = g.block(sub, 1, 4)

    def blocks(self):
        return [self.body]

    def emit(self, o):
        o('#pragma omp taskgroup')
        o.open('{')
        self.body.emit(o)
        o.close()

    def run(self, it, env):
        self.body.run(it, dict(env))


class TaskLoop(Stmt):
    def __init__(self, g, ctx):
        r = g.rng
        self.collapse = r.random() < 0.2
        self.hdrs = [LoopHeader(g, g.fresh('i'), small=self.collapse)]
        if self.collapse:
            self.hdrs.append(LoopHeader(g, g.fresh('j'), small=True))
        for h in self.hdrs:
            if h.type == 'unsigned' and not h.values():
                # clang 14 gives an empty unsigned taskloop ub = 2^32-1:
                # hundreds of millions of empty tasks on any runtime.
                h.hi += h.step
        if any(h.type == 'unsigned' for h in self.hdrs) and not iterations(self.hdrs):
            # The same when a collapsed nest with an unsigned counter is
            # empty through its other loop (the count is computed in 32
            # bits): libomp 14 and Bobbin both hung on seed 464.
            for h in self.hdrs:
                if not h.values():
                    h.hi += h.step
        self.split = r.choice(['', 'grainsize(%d)' % r.randint(1, 7), 'num_tasks(%d)' % r.randint(1, 9)])
        self.nogroup = r.random() < 0.25
        self.untied = r.random() < 0.2
        # clang 14 crashes on a reduction in an untied task (or taskloop)
        self.red = (g.fresh('r') if not self.nogroup and not ctx.untied and not self.untied and r.random() < 0.35
                    else None)
        self.lastpriv = g.fresh('lp') if r.random() < 0.2 and iterations(self.hdrs) else None
        self.prio = r.randint(0, 5) if r.random() < 0.2 else None
        self.final = r.random() < 0.08
        self.if0 = r.random() < 0.08
        self.idx = list(ctx.idx)
        trips = max(1, len(iterations(self.hdrs)))
        sub = task_ctx(ctx, self.untied, trips)
        sub.final = ctx.final or self.final
        sub.idx = ctx.idx + [h.var for h in self.hdrs]
        sub.red = (self.red, '+') if self.red else None
        self.body = g.block(sub, 1, 3)
        self.lp_e = Expr(r, sub.idx)

    def blocks(self):
        return [self.body]

    def emit(self, o):
        o.open('{')
        if self.red:
            o('unsigned long long %s = 0;' % self.red)
        if self.lastpriv:
            o('unsigned long long %s = 0;' % self.lastpriv)
        cl = ' ' + self.split if self.split else ''
        if self.collapse:
            cl += ' collapse(2)'
        if self.nogroup:
            cl += ' nogroup'
        if self.red:
            cl += ' reduction(+: %s)' % self.red
        if self.lastpriv:
            cl += ' lastprivate(%s)' % self.lastpriv
        if self.untied:
            cl += ' untied'
        if self.prio is not None:
            cl += ' priority(%d)' % self.prio
        if self.final:
            cl += ' final(1)'
        if self.if0:
            cl += ' if(0)'
        o('#pragma omp taskloop' + cl + fp_clause(self.idx))
        for h in self.hdrs[:-1]:
            o(h.c_text())
        o.open(self.hdrs[-1].c_text() + ' {')
        if self.lastpriv:
            o('%s = %s;' % (self.lastpriv, self.lp_e.c_text()))
        self.body.emit(o)
        o.close()
        if self.nogroup:
            o('#pragma omp taskwait')
        if self.red:
            emit_consume(o, self.red)
        if self.lastpriv:
            emit_consume(o, self.lastpriv)
        o.close()

    def run(self, it, env):
        e = dict(env)
        if self.red:
            e[self.red] = Cell(0)
        if self.lastpriv:
            e[self.lastpriv] = Cell(0)
        for iv in iterations(self.hdrs):
            ie = dict(e, **iv)
            if self.lastpriv:
                e[self.lastpriv].v = self.lp_e.value(ie)
            self.body.run(it, ie)
        if self.red:
            run_consume(it, e, self.red)
        if self.lastpriv:
            run_consume(it, e, self.lastpriv)


class TaskRed(Stmt):
    """taskgroup task_reduction with in_reduction tasks (and their children)."""

    def __init__(self, g, ctx):
        r = g.rng
        self.r = g.fresh('r')
        self.idx = list(ctx.idx)
        self.outside_in_task = ctx.level == 0 and ctx.in_task
        self.tasks = []
        for _ in range(r.randint(1, 4)):
            sub = task_ctx(ctx, False)
            sub.red = (self.r, '+')
            body = g.block(sub, 1, 2)
            a = Add(g, sub)
            a.kind = 'red'
            body.items.insert(0, g.reg(a))
            self.tasks.append((r.random() < 0.2, body))

    def blocks(self):
        return [b for _, b in self.tasks]

    def emit(self, o):
        o.open('{')
        o('unsigned long long %s = 0;' % self.r)
        o('#pragma omp taskgroup task_reduction(+: %s)' % self.r)
        o.open('{')
        for if0, body in self.tasks:
            o('#pragma omp task in_reduction(+: %s)%s%s' % (self.r, ' if(0)' if if0 else '', fp_clause(self.idx)))
            o.open('{')
            body.emit(o)
            o.close()
        o.close()
        emit_consume(o, self.r)
        o.close()

    def run(self, it, env):
        e = dict(env)
        e[self.r] = Cell(0)
        for _, body in self.tasks:
            body.run(it, dict(e))
        run_consume(it, e, self.r)


class DepChain(Stmt):
    """Sibling tasks ordered by dependences on a few objects. Each object has
    a chain value: writers update it in an order-sensitive way (v = v*3 + c),
    readers add what they see to the output, mutexinoutset members add to it
    without an atomic, inoutset members add atomically. Any order the
    dependences allow gives the creation-order result. Each member is a
    statement of its own (the reducer drops members)."""

    def __init__(self, g, ctx):
        r = g.rng
        self.name = g.fresh('d')
        self.nobj = r.randint(1, 3)
        self.idx = list(ctx.idx)
        self.members = Block()
        for _ in range(r.randint(2, 7)):
            self.members.items.append(g.reg(ChainMember(g, ctx, self)))

    def blocks(self):
        return [self.members]

    def ch(self, k):
        return '%s_v%d' % (self.name, k)

    def emit(self, o):
        o.open('{')
        o('char %s[%d];' % (self.name, self.nobj))
        for k in range(self.nobj):
            o('unsigned long long %s = %d;' % (self.ch(k), k + 1))
        self.members.emit(o)
        o('#pragma omp taskwait')
        for k in range(self.nobj):
            o('#pragma omp atomic\nacc[0] += %s;' % self.ch(k))
        o.close()

    def run(self, it, env):
        e = dict(env)
        e[self.name] = [Cell(k + 1) for k in range(self.nobj)]
        self.members.run(it, e)
        for c in e[self.name]:
            it.st.add('acc[0]', c.v)


class ChainMember(Stmt):
    def __init__(self, g, ctx, chain):
        r = g.rng
        self.chain = chain
        self.kind = pick(r, [('out', 3), ('inout', 3), ('in', 3), ('mutex', 2), ('inoutset', 1), ('iter', 1),
                             ('cross', 2), ('wait', 1)])
        self.obj = r.randrange(chain.nobj)
        self.other = r.randrange(chain.nobj)
        self.c = r.randint(1, 99)
        self.if0 = r.random() < 0.1
        self.untied = r.random() < 0.2
        self.prio = r.randint(0, 3) if r.random() < 0.2 else None
        self.detach = r.choice([None, None, None, None, 'self', 'creator']) if self.kind in ('out', 'inout') else None
        if self.detach == 'creator' and (self.if0 or ctx.final):
            # libgomp 12 waits for an undeferred (or included) task's event
            # before the construct returns: only the task itself can fulfil
            # it then.
            self.detach = 'self'
        self.body = None
        if self.kind != 'wait' and r.random() < 0.3:
            self.body = g.block(task_ctx(ctx, self.untied), 1, 2)
        self.n = g.n
        g.n += 1

    def blocks(self):
        return [self.body] if self.body is not None else []

    def emit(self, o):
        ch = self.chain
        kind, c = self.kind, self.c
        d = '%s[%d]' % (ch.name, self.obj)
        v = ch.ch(self.obj)
        if kind == 'wait':
            o('#pragma omp taskwait depend(in: %s)' % d)
            o('#pragma omp atomic\nacc[0] += %s;' % v)
            return
        cl = ''
        if self.if0:
            cl += ' if(0)'
        if self.untied:
            cl += ' untied'
        if self.prio is not None:
            cl += ' priority(%d)' % self.prio
        ev = '%s_e%d' % (ch.name, self.n)
        if self.detach:
            o('omp_event_handle_t %s;' % ev)
            cl += ' detach(%s)' % ev
        if kind in ('out', 'inout'):
            dep, act = 'depend(%s: %s)' % (kind, d), '%s = %s * 3ull + %d;' % (v, v, c)
        elif kind == 'in':
            dep, act = 'depend(in: %s)' % d, '#pragma omp atomic\nacc[0] += %s;' % v
        elif kind == 'mutex':
            dep, act = 'depend(mutexinoutset: %s)' % d, '%s += %d;' % (v, c)
        elif kind == 'inoutset':
            dep, act = 'depend(INOUTSET: %s)' % d, '#pragma omp atomic\n%s += %d;' % (v, c)
        elif kind == 'iter':
            dep = 'depend(iterator(it = 0:%d), inout: %s[it])' % (ch.nobj, ch.name)
            act = '\n'.join('%s = %s * 5ull + %d;' % (ch.ch(k), ch.ch(k), c) for k in range(ch.nobj))
        elif kind == 'cross':
            w = ch.ch(self.other)
            if self.other == self.obj:
                dep = 'depend(inout: %s)' % d
            else:
                dep = 'depend(in: %s) depend(inout: %s[%d])' % (d, ch.name, self.other)
            act = '%s = %s * 7ull + %s;' % (w, w, v)
        shared = ' shared(%s)' % ', '.join(ch.ch(k) for k in range(ch.nobj))
        o('#pragma omp task %s%s%s%s' % (dep, cl, shared, fp_clause(ch.idx)))
        o.open('{')
        o(act)
        if self.body is not None:
            self.body.emit(o)
        if self.detach == 'self':
            o('omp_fulfill_event(%s);' % ev)
        o.close()
        if self.detach == 'creator':
            o('omp_fulfill_event(%s);' % ev)

    def run(self, it, env):
        cells = env[self.chain.name]
        kind, c = self.kind, self.c
        cur = cells[self.obj]
        if kind in ('wait', 'in'):
            it.st.add('acc[0]', cur.v)
        elif kind in ('out', 'inout'):
            cur.v = (cur.v * 3 + c) & M64
        elif kind in ('mutex', 'inoutset'):
            cur.v = (cur.v + c) & M64
        elif kind == 'iter':
            for x in cells:
                x.v = (x.v * 5 + c) & M64
        elif kind == 'cross':
            w = cells[self.other]
            w.v = (w.v * 7 + cur.v) & M64
        if kind != 'wait' and self.body is not None:
            self.body.run(it, dict(env))


class Detach(Stmt):
    def __init__(self, g, ctx):
        r = g.rng
        self.ev = g.fresh('ev')
        # In a final task this one is included: see DepChain.
        self.how = 'self' if ctx.final else r.choice(['self', 'creator', 'task'])
        self.idx = list(ctx.idx)
        self.body = g.block(task_ctx(ctx, False), 1, 3)
        self.wait = r.random() < 0.5

    def blocks(self):
        return [self.body]

    def emit(self, o):
        o.open('{')
        o('omp_event_handle_t %s;' % self.ev)
        o('#pragma omp task detach(%s)%s' % (self.ev, fp_clause(self.idx)))
        o.open('{')
        self.body.emit(o)
        if self.how == 'self':
            o('omp_fulfill_event(%s);' % self.ev)
        o.close()
        if self.how == 'creator':
            o('omp_fulfill_event(%s);' % self.ev)
        elif self.how == 'task':
            o('#pragma omp task firstprivate(%s)' % self.ev)
            o('omp_fulfill_event(%s);' % self.ev)
        if self.wait:
            o('#pragma omp taskwait')
        o.close()

    def run(self, it, env):
        self.body.run(it, dict(env))


class CancelTaskgroup(Stmt):
    def __init__(self, g, ctx):
        r = g.rng
        self.v = g.fresh('c')
        self.n = r.randint(1, 8)
        self.at = r.randrange(self.n)

    def emit(self, o):
        o('#pragma omp taskgroup')
        o.open('{')
        o.open('for (int %s = 0; %s < %d; %s++) {' % (self.v, self.v, self.n, self.v))
        o('#pragma omp task firstprivate(%s)' % self.v)
        o.open('{')
        o('#pragma omp atomic\nsink += %s;' % self.v)
        o('if (%s == %d)' % (self.v, self.at))
        o.open('{')
        o('#pragma omp cancel taskgroup')
        o.close()
        o('#pragma omp cancellation point taskgroup')
        o.close()
        o.close()
        o.close()

    def run(self, it, env):
        pass


class Program:
    def __init__(self, seed):
        self.seed = seed
        g = Gen(seed)
        self.g = g
        ctx = Ctx()
        self.body = g.block(ctx, 2, 8)
        while g.budget > 0 and len(self.body.items) < 12:
            s = g.once_stmt(ctx)
            self.body.items.append(g.reg(s))

    def outputs(self):
        return (['acc[%d]' % k for k in range(ACC_ATOMIC)] + ['acc32[%d]' % k for k in range(ACC_32)] +
                ['crit[0]', 'crit[1]', 'lck', 'nlck'])

    def expected(self, removed=frozenset()):
        it = Interp(removed)
        self.body.run(it, {})
        return {k: it.st.out.get(k, 0) for k in self.outputs()}

    def render(self, removed=frozenset(), conformance=False):
        exp = self.expected(removed)
        o = Out(removed)
        self.body.emit(o)
        body = o.lines
        head = []
        if self.stock_defects(removed):
            head += ['// FUZZ-STOCK-DEFECT %s' % d for d in self.stock_defects(removed)]
        head += ['/* Generated by tests/fuzz/gen.py from seed %d. Prints its output variables;' % self.seed,
                '   the expected values are the generator\'s (a run with one thread, tasks run',
                '   when created), which every legal schedule must reproduce. */']
        if conformance:
            head += ['#include "check.h"']
        head += ['#include <omp.h>', '#include <stdio.h>', '',
                 '#define X(v) ((unsigned long long)(v))',
                 '/* inoutset (OpenMP 5.1): neither clang 14 nor gcc 12 parses it. */',
                 '#if (defined(__clang__) && __clang_major__ >= 15) || (!defined(__clang__) && __GNUC__ >= 13)',
                 '#define INOUTSET inoutset', '#else', '#define INOUTSET inout', '#endif', '',
                 'static unsigned long long acc[%d], crit[2], lck, nlck, sink;' % ACC_ATOMIC,
                 'static unsigned acc32[%d];' % ACC_32,
                 'static omp_lock_t lk;', 'static omp_nest_lock_t nlk;']
        tps = sorted(set(self.g.threadprivates))
        if tps:
            head += ['static unsigned long long %s;' % ', '.join(tps),
                     '#pragma omp threadprivate(%s)' % ', '.join(tps)]
        head += ['', 'int main(void) {', '  omp_init_lock(&lk);', '  omp_init_nest_lock(&nlk);',
                 '  #pragma omp taskgroup', '  {']
        tail = ['  }', '  int bad = 0;']
        for k in self.outputs():
            w = exp[k]
            tail.append('  printf("%s %%llu\\n", (unsigned long long)%s);' % (k, k))
            if conformance:
                tail.append('  CHECK(%s == %dull, "%s: got %%llu, want %dull", (unsigned long long)%s);' % (k, w, k, w, k))
            else:
                tail.append('  if (%s != %dull) { printf("FAIL %s: want %d\\n"); bad = 1; }' % (k, w, k, w))
        tail += ['  omp_destroy_lock(&lk);', '  omp_destroy_nest_lock(&nlk);', '  (void)sink;']
        if conformance:
            tail += ['  (void)bad;', '  return conf_end();', '}']
        else:
            tail += ['  return bad;', '}']
        # indent the body one more level (inside the taskgroup block)
        body = ['  ' + l for l in body]
        text = '\n'.join(head + body + tail) + '\n'
        expected_out = ''.join('%s %d\n' % (k, exp[k]) for k in self.outputs())
        return text, expected_out

    def stock_defects(self, removed):
        """What in this program stock libomp 14 gets wrong (the runner then
        does not hold the clang build's stock run against it)."""
        live = [s for s in self.g.stmts.values()
                if s.id not in removed and not any(a in removed for a in self.ancestors(s.id))]
        out = []
        if any(isinstance(s, Parallel) and s.cancel for s in live):
            out.append('clang: cancel parallel hangs now and then (a plain region with one cancel hangs in 1 run of 3 '
                       'here)')
        if any(isinstance(s, Detach) and s.how != 'self' for s in live) or any(
                isinstance(s, ChainMember) and s.detach == 'creator' for s in live):
            out.append('gcc: libgomp 12 runs a task outside a parallel region (or in a team of one) at once and waits '
                       'for its detach event there, so one fulfilled later by its creator or a sibling hangs')
        if any(isinstance(s, TaskRed) and s.outside_in_task for s in live):
            out.append('gcc: libgomp 12 frees a bad pointer (free(): invalid pointer) at the end of a taskgroup '
                       'task_reduction in an explicit task outside any parallel region')
        if any(isinstance(s, (Task, ChainMember)) and s.untied and s.if0 for s in live):
            out.append('clang: an untied if(0) task with a scheduling point asserts (kmp_tasking.cpp(1571): '
                       'taskdata->td_last_tied)')
        return out

    def ancestors(self, sid):
        if not hasattr(self, '_parent'):
            self._parent = {}
            for p in self.g.stmts.values():
                for b in p.blocks():
                    for c in b.items:
                        self._parent[c.id] = p.id
        out = []
        while sid in self._parent:
            sid = self._parent[sid]
            out.append(sid)
        return out

    def all_ids(self):
        return sorted(self.g.stmts)

    def children(self, sid):
        """Ids of the statements inside statement `sid` (all depths)."""
        out = []
        stack = list(self.g.stmts[sid].blocks())
        while stack:
            b = stack.pop()
            for s in b.items:
                out.append(s.id)
                stack.extend(s.blocks())
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('seed', type=int)
    ap.add_argument('-o', '--output', help='write the program here and the expected output beside it (.expected)')
    ap.add_argument('--conformance', action='store_true', help='a tests/conformance program (check.h)')
    ap.add_argument('--remove', default='', help='comma-separated statement ids to leave out (the reducer\'s)')
    a = ap.parse_args()
    removed = frozenset(int(x) for x in a.remove.split(',') if x)
    p = Program(a.seed)
    text, exp = p.render(removed, a.conformance)
    if a.output:
        with open(a.output, 'w') as f:
            f.write(text)
        base = a.output[:-2] if a.output.endswith('.c') else a.output
        with open(base + '.expected', 'w') as f:
            f.write(exp)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
