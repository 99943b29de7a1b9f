/* tl_pool.h - run a function over N items on a pool of threads (a parallel for). */
#ifndef TL_POOL_H
#define TL_POOL_H

#include <stddef.h>

/* Calls fn(ctx, worker, item) for item in [0, nitems), on `threads` threads (0: all cores).
 * `worker` is in [0, used threads) and lets the callee keep per-thread state in ctx.
 * Returns the number of threads used (so callers can size per-thread state with
 * tl_pool_threads first). Items are handed out in order from a shared atomic counter. */
void tl_pool_run(unsigned threads, size_t nitems, void (*fn)(void *ctx, unsigned worker, size_t item), void *ctx);
/* The number of threads tl_pool_run will use for this request. */
unsigned tl_pool_threads(unsigned threads, size_t nitems);

#endif
