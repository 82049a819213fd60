/* affinity.h: the place list and the thread-affinity rules, for the aff_*
 * programs.
 *
 * Everything a program expects is computed here from the spec and from what
 * the program reads through the API, so one program serves any machine and
 * any OMP_PLACES / OMP_PROC_BIND:
 *
 * - aff_list_read() reads the place list with omp_get_num_places,
 *   omp_get_place_num_procs and omp_get_place_proc_ids.
 * - aff_list_expect() compares it with CONF_EXPECT_PLACES: an explicit list
 *   ("{0},{1}", exact order), or an abstract name (threads, cores, sockets,
 *   ll_caches, numa_domains, optionally "(n)"), whose places are computed
 *   from sysfs and compared as a set: the spec leaves the order and the
 *   exact meaning of abstract names to the implementation, but every runtime
 *   we know groups the usable processors this way.
 * - aff_record() captures what a thread can see of its binding: place,
 *   partition, and whether sched_getaffinity lies inside the place.
 * - aff_check_team() checks a team against the rule of OpenMP 5.2,
 *   "Controlling OpenMP Thread Affinity", for the policy that applied, given
 *   the parent thread's place and partition.
 *
 * Under Bobbin with BOBBIN_TOPOLOGY (a synthetic machine, whose processors
 * map round-robin onto the real ones and so repeat), only the place-number
 * logic is checked: abstract names by count from the description, no
 * sched_getaffinity.
 */
#ifndef CONF_AFFINITY_H
#define CONF_AFFINITY_H

#include <ctype.h>
#include <dirent.h>
#include <sched.h>

#include "check.h"

#define AFF_MAX_PLACES 256 /* enough for every machine and model we run on */
#define AFF_MAX_TEAM 80

typedef struct {
  int n;
  int ids[AFF_MAX_PLACES]; /* processors, as omp_get_place_proc_ids gives them */
} aff_place;

typedef struct {
  int n;
  aff_place p[AFF_MAX_PLACES];
} aff_list;

/* The list every program reads once, before any region. */
static aff_list aff_places;

/* The processors the process may use, read before the runtime starts (and
   possibly pins the initial thread): constructors of the executable run
   after the runtime library's, and neither libomp nor Bobbin binds before
   the first OpenMP call. */
static cpu_set_t aff_allowed;
__attribute__((constructor)) static void aff_save_mask(void) {
  CPU_ZERO(&aff_allowed);
  if (sched_getaffinity(0, sizeof aff_allowed, &aff_allowed) != 0)
    for (int c = 0; c < 2; c++)
      CPU_SET(c, &aff_allowed);
}

static int aff_synthetic(void) CONF_UNUSED;
static int aff_synthetic(void) {
  const char *t = getenv("BOBBIN_TOPOLOGY"), *b = getenv("CONF_EXPECT_BOBBIN");
  return t && *t && b && b[0] == '1';
}

static void aff_list_read(void) CONF_UNUSED;
static void aff_list_read(void) {
  int n = omp_get_num_places();
  CHECK(n >= 1 && n <= AFF_MAX_PLACES, "omp_get_num_places() = %d", n);
  if (n < 0 || n > AFF_MAX_PLACES)
    n = 0;
  aff_places.n = n;
  for (int i = 0; i < n; i++) {
    aff_place *pl = &aff_places.p[i];
    pl->n = omp_get_place_num_procs(i);
    CHECK(pl->n >= 1 && pl->n <= AFF_MAX_PLACES, "omp_get_place_num_procs(%d) = %d", i, pl->n);
    if (pl->n < 1 || pl->n > AFF_MAX_PLACES) {
      pl->n = 0;
      continue;
    }
    for (int k = 0; k < pl->n; k++)
      pl->ids[k] = -7;
    omp_get_place_proc_ids(i, pl->ids);
    for (int k = 0; k < pl->n; k++)
      CHECK(pl->ids[k] >= 0 && pl->ids[k] < CPU_SETSIZE && CPU_ISSET(pl->ids[k], &aff_allowed),
            "place %d: processor %d is not one the process may use", i, pl->ids[k]);
  }
  /* out of range: no processors (omp_get_place_num_procs) */
  CHECK_EQ("omp_get_place_num_procs(-1)", omp_get_place_num_procs(-1), 0);
  CHECK_EQ("omp_get_place_num_procs(num_places)", omp_get_place_num_procs(n), 0);
}

static void aff_place_str(const aff_place *pl, char *buf, size_t len) {
  size_t k = (size_t)snprintf(buf, len, "{");
  for (int i = 0; i < pl->n && k + 12 < len; i++)
    k += (size_t)snprintf(buf + k, len - k, i ? ",%d" : "%d", pl->ids[i]);
  snprintf(buf + k, len - k, "}");
}

static void aff_list_str(const aff_list *l, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < l->n && k + 40 < len; i++) {
    if (i)
      buf[k++] = ',';
    aff_place_str(&l->p[i], buf + k, len - k);
    k += strlen(buf + k);
  }
}

/* ---- expected lists ------------------------------------------------------- */

/* "0-3,8,10-11" into a set. */
static void aff_parse_cpulist(const char *s, cpu_set_t *out) {
  CPU_ZERO(out);
  while (*s) {
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s)
      break;
    if (*end == '-')
      b = strtol(end + 1, &end, 10);
    for (long c = a; c <= b && c < CPU_SETSIZE; c++)
      CPU_SET((int)c, out);
    s = *end == ',' ? end + 1 : end;
    if (*s == '\n')
      break;
  }
}

static int aff_read_cpulist(const char *path, cpu_set_t *out) {
  FILE *f = fopen(path, "r");
  char buf[4096];
  if (!f)
    return 0;
  int ok = fgets(buf, sizeof buf, f) != NULL;
  fclose(f);
  if (ok)
    aff_parse_cpulist(buf, out);
  return ok;
}

/* The set of processors that share `kind` with processor c. */
static int aff_group_of(const char *kind, int c, cpu_set_t *out) {
  char path[320]; /* a d_name (up to 255) and the sysfs prefix and suffix */
  if (!strcmp(kind, "threads")) {
    CPU_ZERO(out);
    CPU_SET(c, out);
    return 1;
  }
  if (!strcmp(kind, "cores")) {
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
    return aff_read_cpulist(path, out);
  }
  if (!strcmp(kind, "sockets")) {
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list", c);
    if (aff_read_cpulist(path, out))
      return 1;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_siblings_list", c);
    return aff_read_cpulist(path, out);
  }
  if (!strcmp(kind, "ll_caches")) { /* the highest-level cache that lists its sharers */
    int best = -1;
    for (int i = 0; i < 8; i++) {
      int level = 0;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", c, i);
      FILE *f = fopen(path, "r");
      if (!f)
        continue;
      if (fscanf(f, "%d", &level) != 1)
        level = 0;
      fclose(f);
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", c, i);
      cpu_set_t s;
      if (level > best && aff_read_cpulist(path, &s)) {
        best = level;
        *out = s;
      }
    }
    return best >= 0;
  }
  if (!strcmp(kind, "numa_domains")) {
    DIR *d = opendir("/sys/devices/system/node");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)) != NULL && !found) {
      if (strncmp(e->d_name, "node", 4) || !isdigit((unsigned char)e->d_name[4]))
        continue;
      snprintf(path, sizeof path, "/sys/devices/system/node/%s/cpulist", e->d_name);
      if (aff_read_cpulist(path, out) && CPU_ISSET(c, out))
        found = 1;
    }
    if (d)
      closedir(d);
    if (!found) { /* no NUMA information: one domain */
      CPU_ZERO(out);
      for (int k = 0; k < CPU_SETSIZE; k++)
        CPU_SET(k, out);
    }
    return 1;
  }
  return 0;
}

/* The groups of `kind` over the usable processors, each as a sorted place. */
static int aff_groups(const char *kind, aff_list *out) {
  cpu_set_t seen;
  CPU_ZERO(&seen);
  out->n = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &aff_allowed) || CPU_ISSET(c, &seen))
      continue;
    cpu_set_t g;
    if (!aff_group_of(kind, c, &g))
      return 0;
    CPU_SET(c, &g);
    if (out->n == AFF_MAX_PLACES)
      return 0;
    aff_place *pl = &out->p[out->n++];
    pl->n = 0;
    for (int k = 0; k < CPU_SETSIZE; k++)
      if (CPU_ISSET(k, &g) && CPU_ISSET(k, &aff_allowed) && pl->n < AFF_MAX_PLACES) {
        pl->ids[pl->n++] = k;
        CPU_SET(k, &seen);
      }
  }
  return 1;
}

static int aff_cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int aff_same_set(const aff_place *a, const aff_place *b) {
  if (a->n != b->n)
    return 0;
  int x[AFF_MAX_PLACES], y[AFF_MAX_PLACES];
  memcpy(x, a->ids, sizeof(int) * (size_t)a->n);
  memcpy(y, b->ids, sizeof(int) * (size_t)b->n);
  qsort(x, (size_t)a->n, sizeof(int), aff_cmp_int);
  qsort(y, (size_t)b->n, sizeof(int), aff_cmp_int);
  return memcmp(x, y, sizeof(int) * (size_t)a->n) == 0;
}

/* "{0,1},{2}" (braces and numbers only, as the meson rows write them). */
static int aff_parse_explicit(const char *s, aff_list *out) {
  out->n = 0;
  while (*s) {
    if (*s == ',' || *s == ' ') {
      s++;
      continue;
    }
    if (*s != '{' || out->n == AFF_MAX_PLACES)
      return 0;
    aff_place *pl = &out->p[out->n++];
    pl->n = 0;
    s++;
    while (*s && *s != '}') {
      char *end;
      long v = strtol(s, &end, 10);
      if (end == s)
        return 0;
      pl->ids[pl->n++] = (int)v;
      s = *end == ',' ? end + 1 : end;
    }
    if (*s != '}')
      return 0;
    s++;
  }
  return 1;
}

/* Places of `kind` in a BOBBIN_TOPOLOGY description ("pack:2 core:4 pu:2"):
   the product of the counts down to that level, or -1 if it has none. */
static long aff_synthetic_count(const char *kind) {
  const char *d = getenv("BOBBIN_TOPOLOGY");
  long product = 1;
  char name[32];
  long count;
  int used;
  while (d && sscanf(d, " %31[^:]:%ld%n", name, &count, &used) == 2) {
    d += used;
    for (char *c = name; *c; c++)
      *c = (char)tolower((unsigned char)*c);
    product *= count;
    const char *k = !strcmp(name, "pack") || !strcmp(name, "package") || !strcmp(name, "socket") ? "sockets"
                    : !strcmp(name, "numa") || !strcmp(name, "node") || !strcmp(name, "numanode") ? "numa_domains"
                    : !strcmp(name, "l3") || !strcmp(name, "l3cache") || !strcmp(name, "l3u") ? "ll_caches"
                    : !strcmp(name, "core") ? "cores"
                    : !strcmp(name, "pu") ? "threads"
                                           : "";
    if (!strcmp(k, kind))
      return product;
  }
  return -1;
}

/* Compares aff_places with CONF_EXPECT_PLACES (see the header). */
static void aff_list_expect(void) CONF_UNUSED;
static void aff_list_expect(void) {
  const char *want = getenv("CONF_EXPECT_PLACES");
  char got[2048];
  aff_list_str(&aff_places, got, sizeof got);
  if (!want || !*want)
    return;
  static aff_list exp;
  if (want[0] == '{') {
    if (!aff_parse_explicit(want, &exp)) {
      CHECK(0, "CONF_EXPECT_PLACES='%s' is not a list of {n,...}", want);
      return;
    }
    for (int i = 0; i < exp.n; i++)
      for (int k = 0; k < exp.p[i].n; k++)
        if (!CPU_ISSET(exp.p[i].ids[k], &aff_allowed)) {
          printf("note: processor %d is not usable here; the place list is not checked\n", exp.p[i].ids[k]);
          return;
        }
    char w[2048];
    aff_list_str(&exp, w, sizeof w);
    int same = exp.n == aff_places.n;
    for (int i = 0; same && i < exp.n; i++)
      same = aff_same_set(&exp.p[i], &aff_places.p[i]);
    CHECK(same, "place list: got %s, want %s (OMP_PLACES=%s KMP_AFFINITY=%s)", got, w,
          getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "unset",
          getenv("KMP_AFFINITY") ? getenv("KMP_AFFINITY") : "unset");
    return;
  }
  char kind[32];
  long limit = -1;
  snprintf(kind, sizeof kind, "%s", want);
  char *paren = strchr(kind, '(');
  if (paren) {
    limit = strtol(paren + 1, NULL, 10);
    *paren = 0;
  }
  if (aff_synthetic()) {
    long n = aff_synthetic_count(kind);
    if (n > 0)
      CHECK_EQ("number of places on the synthetic machine", aff_places.n, limit > 0 && limit < n ? limit : n);
    return;
  }
  if (!aff_groups(kind, &exp)) {
    printf("note: sysfs does not describe %s here; the place list is not checked\n", kind);
    return;
  }
  char w[2048];
  aff_list_str(&exp, w, sizeof w);
  int n = limit > 0 && limit < exp.n ? (int)limit : exp.n;
  int ok = aff_places.n == n;
  for (int i = 0; ok && i < aff_places.n; i++) { /* each place is a distinct group */
    int found = 0;
    for (int k = 0; k < exp.n && !found; k++)
      found = aff_same_set(&aff_places.p[i], &exp.p[k]);
    for (int j = 0; j < i && found; j++)
      found = !aff_same_set(&aff_places.p[i], &aff_places.p[j]);
    ok = found;
  }
  CHECK(ok, "place list for %s: got %s, want %d of the groups %s", want, got, n, w);
}

/* ---- what a thread sees ---------------------------------------------------- */

typedef struct {
  int place;                  /* omp_get_place_num() */
  int npart;                  /* omp_get_partition_num_places() */
  int part[AFF_MAX_PLACES];   /* omp_get_partition_place_nums() */
  int mask_ok;                /* sched_getaffinity within the place (or not checked) */
  char mask[64];              /* the mask, for messages */
  int bind;                   /* omp_get_proc_bind(): the policy for its next region */
} aff_me;

static void aff_record(aff_me *r) {
  r->place = omp_get_place_num();
  r->npart = omp_get_partition_num_places();
  if (r->npart < 0 || r->npart > AFF_MAX_PLACES)
    r->npart = 0;
  omp_get_partition_place_nums(r->part);
  r->bind = (int)omp_get_proc_bind();
  r->mask_ok = 1;
  r->mask[0] = 0;
  if (r->place < 0 || r->place >= aff_places.n || aff_synthetic())
    return;
  cpu_set_t s;
  CPU_ZERO(&s);
  if (sched_getaffinity(0, sizeof s, &s) != 0)
    return;
  size_t k = 0;
  for (int c = 0; c < CPU_SETSIZE && k + 8 < sizeof r->mask; c++)
    if (CPU_ISSET(c, &s))
      k += (size_t)snprintf(r->mask + k, sizeof r->mask - k, k ? ",%d" : "%d", c);
  cpu_set_t place;
  CPU_ZERO(&place);
  for (int i = 0; i < aff_places.p[r->place].n; i++)
    CPU_SET(aff_places.p[r->place].ids[i], &place);
  cpu_set_t both;
  CPU_AND(&both, &s, &place);
  r->mask_ok = CPU_COUNT(&s) > 0 && CPU_EQUAL(&both, &s);
}

static int aff_pos(const aff_me *parent, int place) {
  for (int k = 0; k < parent->npart; k++)
    if (parent->part[k] == place)
      return k;
  return -1;
}

static int aff_same_partition(const aff_me *a, const aff_me *b) {
  if (a->npart != b->npart)
    return 0;
  for (int k = 0; k < a->npart; k++)
    if (a->part[k] != b->part[k])
      return 0;
  return 1;
}

/* Thread i of a team of T with T > P, for close and spread: consecutive
   threads share a place or move to the next, starting at the parent's, each
   place holding floor(T/P) or ceil(T/P) of them. */
static void aff_check_grouped(const char *what, const aff_me *parent, int T, const aff_me *th) {
  int P = parent->npart, pos0 = aff_pos(parent, parent->place);
  int count[AFF_MAX_PLACES] = {0}, prev = 0;
  for (int i = 0; i < T; i++) {
    int p = aff_pos(parent, th[i].place);
    CHECK(p >= 0, "%s: thread %d is on place %d, outside the parent's partition", what, i, th[i].place);
    if (p < 0)
      return;
    int d = (p - pos0 + P) % P;
    CHECK(i ? d == prev || d == prev + 1 : d == 0,
          "%s: thread %d is on place %d (%d along the partition); thread %d was %d along", what, i,
          th[i].place, d, i - 1, prev);
    count[d]++;
    prev = d;
  }
  for (int d = 0; d < P; d++)
    CHECK(count[d] >= T / P && count[d] <= (T + P - 1) / P,
          "%s: place %d along the partition has %d threads; want %d..%d", what, d, count[d], T / P,
          (T + P - 1) / P);
}

/* Checks a team of T (th[0..T-1]) whose parent was `parent`, under `policy`
   (the proc_bind clause, else the parent's bind-var; omp_proc_bind_false
   when binding is off, since proc_bind clauses are then ignored). */
static void aff_check_team(const char *what, int policy, const aff_me *parent, int T, const aff_me *th)
    CONF_UNUSED;
static void aff_check_team(const char *what, int policy, const aff_me *parent, int T, const aff_me *th) {
  int P = parent->npart;
  for (int i = 0; i < T; i++) {
    CHECK(th[i].place >= -1 && th[i].place < aff_places.n, "%s: thread %d: omp_get_place_num() = %d", what,
          i, th[i].place);
    CHECK(th[i].mask_ok, "%s: thread %d is bound to place %d but sched_getaffinity gives {%s}", what, i,
          th[i].place, th[i].mask);
    for (int k = 0; k < th[i].npart; k++)
      CHECK(th[i].part[k] >= 0 && th[i].part[k] < aff_places.n, "%s: thread %d: partition place %d", what, i,
            th[i].part[k]);
  }
  if (policy == omp_proc_bind_false)
    return; /* not bound: -1, or a place its mask lies in (checked above) */
  CHECK(parent->place >= 0 && aff_pos(parent, parent->place) >= 0,
        "%s: binding is on, but the encountering thread is on place %d, not in its partition", what,
        parent->place);
  if (parent->place < 0 || aff_pos(parent, parent->place) < 0 || P < 1)
    return;
  for (int i = 0; i < T; i++)
    CHECK(th[i].place >= 0, "%s: binding is on, but thread %d is not bound (place -1)", what, i);
  int pos0 = aff_pos(parent, parent->place);
  switch (policy) {
  case omp_proc_bind_master:
    for (int i = 0; i < T; i++) {
      CHECK(th[i].place == parent->place, "%s: primary: thread %d on place %d, want the parent's %d", what, i,
            th[i].place, parent->place);
      CHECK(aff_same_partition(&th[i], parent), "%s: primary: thread %d's partition changed", what, i);
    }
    break;
  case omp_proc_bind_close:
    for (int i = 0; i < T; i++)
      CHECK(aff_same_partition(&th[i], parent), "%s: close: thread %d's partition changed", what, i);
    if (T <= P) {
      for (int i = 0; i < T; i++)
        CHECK(th[i].place == parent->part[(pos0 + i) % P], "%s: close: thread %d on place %d, want %d", what, i,
              th[i].place, parent->part[(pos0 + i) % P]);
    } else {
      aff_check_grouped(what, parent, T, th);
    }
    break;
  case omp_proc_bind_spread:
    if (T > P) {
      aff_check_grouped(what, parent, T, th);
      for (int i = 0; i < T; i++)
        CHECK(th[i].npart == 1 && th[i].part[0] == th[i].place,
              "%s: spread: thread %d on place %d has a partition of %d places starting at %d, want only its place",
              what, i, th[i].place, th[i].npart, th[i].part[0]);
      break;
    }
    { /* T subpartitions of floor/ceil(P/T) consecutive places, in thread order */
      int start = th[0].npart > 0 ? aff_pos(parent, th[0].part[0]) : -1, total = 0;
      CHECK(start >= 0, "%s: spread: thread 0's partition does not start inside the parent's", what);
      CHECK(th[0].place == parent->place, "%s: spread: thread 0 on place %d, want the parent's %d", what,
            th[0].place, parent->place);
      for (int i = 0; i < T && start >= 0; i++) {
        const aff_me *t = &th[i];
        CHECK(t->npart == P / T || t->npart == (P + T - 1) / T,
              "%s: spread: thread %d's partition has %d places; want %d or %d", what, i, t->npart, P / T,
              (P + T - 1) / T);
        for (int k = 0; k < t->npart; k++)
          CHECK(t->part[k] == parent->part[(start + k) % P],
                "%s: spread: thread %d's partition place %d is %d, want %d (runs follow each other)", what, i, k,
                t->part[k], parent->part[(start + k) % P]);
        int in = 0;
        for (int k = 0; k < t->npart; k++)
          in |= t->part[k] == t->place;
        CHECK(in, "%s: spread: thread %d's place %d is not in its partition", what, i, t->place);
        if (i > 0)
          CHECK(t->place == t->part[0], "%s: spread: thread %d on place %d, want the first of its partition, %d",
                what, i, t->place, t->part[0]);
        start = (start + t->npart) % P;
        total += t->npart;
      }
      CHECK(total == P, "%s: spread: the partitions cover %d places of %d", what, total, P);
    }
    break;
  default: /* true: implementation-defined, but bound within the partition */
    for (int i = 0; i < T; i++) {
      CHECK(aff_pos(parent, th[i].place) >= 0, "%s: true: thread %d on place %d, outside the parent's partition",
            what, i, th[i].place);
      for (int k = 0; k < th[i].npart; k++)
        CHECK(aff_pos(parent, th[i].part[k]) >= 0, "%s: true: thread %d's partition leaves the parent's", what, i);
    }
  }
}

/* The bind-var list of OMP_PROC_BIND as the spec reads it (0 if unset or
   not a valid list): the policy for level L is element min(L, n-1). */
static int aff_env_binds(int *out, int max) CONF_UNUSED;
static int aff_env_binds(int *out, int max) {
  const char *s = getenv("OMP_PROC_BIND");
  int n = 0;
  if (!s || !*s)
    return 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ",")) {
    while (isspace((unsigned char)*tok))
      tok++;
    for (char *c = tok; *c; c++)
      *c = (char)tolower((unsigned char)*c);
    char *e = tok + strlen(tok);
    while (e > tok && isspace((unsigned char)e[-1]))
      *--e = 0;
    int b = !strcmp(tok, "false")   ? omp_proc_bind_false
            : !strcmp(tok, "true")  ? omp_proc_bind_true
            : !strcmp(tok, "master") || !strcmp(tok, "primary") ? omp_proc_bind_master
            : !strcmp(tok, "close") ? omp_proc_bind_close
            : !strcmp(tok, "spread") ? omp_proc_bind_spread
                                     : -1;
    if (b < 0)
      return 0;
    out[n++] = b;
  }
  for (int i = 0; i < n && n > 1; i++)
    if (out[i] == omp_proc_bind_false || out[i] == omp_proc_bind_true)
      return 0; /* false and true stand alone */
  return n;
}

/* ---- running teams ----------------------------------------------------------- */

#define AFF_MAX_INNER 8
static aff_me aff_outer[AFF_MAX_TEAM];
static aff_me aff_inner[AFF_MAX_TEAM][AFF_MAX_INNER];
static int aff_inner_size[AFF_MAX_TEAM];

static void aff_member(int inner) {
  int t = omp_get_thread_num();
  aff_record(&aff_outer[t]);
  if (inner > 0) {
#pragma omp parallel num_threads(inner)
    {
      aff_record(&aff_inner[t][omp_get_thread_num()]);
      if (omp_get_thread_num() == 0)
        aff_inner_size[t] = omp_get_num_threads();
    }
  }
}

static const char *aff_policy_name(int b) {
  static const char *names[] = {"false", "true", "primary", "close", "spread"};
  return b >= 0 && b <= 4 ? names[b] : "?";
}

/* A team of T, with proc_bind(clause) unless clause < 0, each member opening
   a team of `inner` (0: none); checks both levels. */
static void aff_run(int T, int clause, int inner) CONF_UNUSED;
static void aff_run(int T, int clause, int inner) {
  if (T > AFF_MAX_TEAM || inner > AFF_MAX_INNER)
    return;
  aff_me parent;
  aff_record(&parent);
  int n = 0;
  switch (clause) {
  case omp_proc_bind_master:
#pragma omp parallel num_threads(T) proc_bind(master)
  {
    aff_member(inner);
    if (omp_get_thread_num() == 0)
      n = omp_get_num_threads();
  }
    break;
  case omp_proc_bind_close:
#pragma omp parallel num_threads(T) proc_bind(close)
  {
    aff_member(inner);
    if (omp_get_thread_num() == 0)
      n = omp_get_num_threads();
  }
    break;
  case omp_proc_bind_spread:
#pragma omp parallel num_threads(T) proc_bind(spread)
  {
    aff_member(inner);
    if (omp_get_thread_num() == 0)
      n = omp_get_num_threads();
  }
    break;
  default:
#pragma omp parallel num_threads(T)
  {
    aff_member(inner);
    if (omp_get_thread_num() == 0)
      n = omp_get_num_threads();
  }
  }
  char what[160];
  int policy = parent.bind == omp_proc_bind_false ? omp_proc_bind_false : clause >= 0 ? clause : parent.bind;
  snprintf(what, sizeof what, "team of %d, %s%s (bind-var %s), %d places in the partition", T,
           clause >= 0 ? "proc_bind " : "no clause, ", clause >= 0 ? aff_policy_name(clause) : "",
           aff_policy_name(parent.bind), parent.npart);
  CHECK(n == T, "%s: %d threads, want %d", what, n, T);
  if (n != T)
    return;
  aff_check_team(what, policy, &parent, T, aff_outer);
  for (int t = 0; t < T && inner > 0; t++) {
    int m = aff_inner_size[t];
    char w2[240];
    snprintf(w2, sizeof w2, "%s; the nested team of %d (asked %d) of thread %d on place %d, bind-var %s", what, m,
             inner, t, aff_outer[t].place, aff_policy_name(aff_outer[t].bind));
    CHECK(m >= 1 && m <= inner, "%s: size", w2);
    if (m >= 1 && m <= inner)
      aff_check_team(w2, aff_outer[t].bind, &aff_outer[t], m, aff_inner[t]);
  }
}

/* The initial thread: bound to the first place of its partition, the whole
   list (5.2, OMP_PROC_BIND), when binding is on. */
static void aff_check_initial(void) CONF_UNUSED;
static void aff_check_initial(void) {
  aff_me me;
  aff_record(&me);
  CHECK(me.mask_ok, "initial thread: bound to place %d but sched_getaffinity gives {%s}", me.place, me.mask);
  CHECK(me.npart == aff_places.n, "initial thread: partition of %d places, want the whole list of %d", me.npart,
        aff_places.n);
  for (int k = 0; k < me.npart && k < aff_places.n; k++)
    CHECK(me.part[k] == k, "initial thread: partition place %d is %d, want %d", k, me.part[k], k);
  if (me.bind != omp_proc_bind_false)
    CHECK(me.place == 0, "initial thread: binding is on (bind-var %d) but it is on place %d, want 0", me.bind,
          me.place);
}

#endif
