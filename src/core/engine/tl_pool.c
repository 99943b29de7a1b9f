/* tl_pool.c - a parallel for over pthreads with an atomic work counter. */
#include "tl_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "tl_util.h"

typedef struct {
  void (*fn)(void *, unsigned, size_t);
  void *ctx;
  size_t n;
  atomic_size_t next;
} tl_pool__job;

typedef struct {
  tl_pool__job *job;
  unsigned worker;
} tl_pool__arg;

static void *tl_pool__main(void *p) {
  tl_pool__arg *a = p;
  for (;;) {
    size_t i = atomic_fetch_add(&a->job->next, 1);
    if (i >= a->job->n) break;
    a->job->fn(a->job->ctx, a->worker, i);
  }
  return NULL;
}

unsigned tl_pool_threads(unsigned threads, size_t nitems) {
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (unsigned)n : 1;
  }
  if (threads > 256) threads = 256;
  if (nitems < threads) threads = nitems ? (unsigned)nitems : 1;
  return threads;
}

void tl_pool_run(unsigned threads, size_t nitems, void (*fn)(void *, unsigned, size_t), void *ctx) {
  threads = tl_pool_threads(threads, nitems);
  tl_pool__job job = {fn, ctx, nitems, 0};
  tl_pool__arg *args = tl_calloc(threads, sizeof *args);
  pthread_t *tids = tl_calloc(threads, sizeof *tids);
  bool *running = tl_calloc(threads, sizeof *running);
  for (unsigned i = 1; i < threads; i++) {
    args[i] = (tl_pool__arg){&job, i};
    /* Deeply nested input needs stack: give workers as much as the main thread usually has. */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8u << 20);
    /* A thread that cannot start leaves its share to the others. */
    running[i] = pthread_create(&tids[i], &attr, tl_pool__main, &args[i]) == 0;
    pthread_attr_destroy(&attr);
  }
  args[0] = (tl_pool__arg){&job, 0};
  tl_pool__main(&args[0]);
  for (unsigned i = 1; i < threads; i++)
    if (running[i]) pthread_join(tids[i], NULL);
  free(running);
  free(args);
  free(tids);
}
