/* A program without OpenMP of its own loads a library that uses it
   (argv[1]), calls it and unloads it, 30 times; then does so from 4 plain
   threads at once. Every call must give the same result, and the process
   must exit 0 (no worker left running unloaded code, no hang at exit). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static const char *g_path;
static long g_want = -1;
static int g_bad;

static long call_once(void) {
  void *h = dlopen(g_path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("FAIL dlopen: %s\n", dlerror());
    exit(1);
  }
  long (*work)(int) = (long (*)(int))dlsym(h, "plugin_work");
  if (!work) {
    printf("FAIL dlsym: %s\n", dlerror());
    exit(1);
  }
  long r = work(10000);
  if (dlclose(h) != 0) {
    printf("FAIL dlclose: %s\n", dlerror());
    exit(1);
  }
  return r;
}

static void *thread_body(void *arg) {
  (void)arg;
  for (int i = 0; i < 10; i++)
    if (call_once() != g_want) __atomic_store_n(&g_bad, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  g_path = argv[1];
  /* sum 0..9999 + the chain + 4 inner members */
  long chain = 0;
  for (int i = 0; i < 20; i++) chain = chain * 3 + i;
  g_want = 49995000L + chain % 1000003 + 4;
  for (int i = 0; i < 30; i++) {
    long r = call_once();
    if (r != g_want) {
      printf("FAIL round %d: got %ld, want %ld\n", i, r, g_want);
      return 1;
    }
  }
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, thread_body, NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  if (g_bad) {
    printf("FAIL a call from a plain thread gave a wrong result\n");
    return 1;
  }
  printf("dlopen ok\n");
  return 0;
}
