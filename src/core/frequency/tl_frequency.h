/* tl_frequency.h - how often code under a condition runs: the frequency guards of the model
 * (docs/hot-code.md, "Frequency guards"). Pure functions of the syntax tree and the source. */
#ifndef TL_FREQUENCY_H
#define TL_FREQUENCY_H

#include <stdbool.h>
#include <stddef.h>

#include "tl_ast.h"

/* Which branch of an `if` runs only every N steps, once, or from the end of training on. */
typedef enum { TL_FREQ_NONE, TL_FREQ_RARE_THEN, TL_FREQ_RARE_ELSE } tl_freq;

/* Is n a remainder `a % b` that is no string formatting (`a` is no string literal)? */
bool tl_freq_is_remainder(TSNode n, const char *src);
/* Does the expression hold such a remainder, outside calls and lambdas? */
bool tl_freq_has_remainder(TSNode n, const char *src);
/* Classifies an `if` condition: `step % N == 0` (then rare), `step % N != 0` (else rare), a test
 * that holds on one iteration of a loop around it or from the end of training on, `not`, `and`
 * (rare when one side is) and `or` (rare when both are), a name in `guard_names` (variables
 * assigned such a test), and a call of a function listed there as "name()" (one that returns
 * such a test: `divisible_by(step, every)`). */
tl_freq tl_freq_test(TSNode cond, const char *src, const char *const *guard_names, size_t nguard);
/* Does the test hold on most steps and fail every N: a remainder of a step count (a loop's counter,
 * or a name that counts steps: `step`, `global_step`, `self.iter`) tested alone or with `!= 0`
 * (`if step % every != 0:`, `if it % log_interval:`)? Not `i % world != rank` (a shard of the
 * data: every step of its rank), nor a remainder of a size (`if h.shape[1] % 8 != 0:`). */
bool tl_freq_skips_steps(TSNode cond, const char *src);
/* Is n (an identifier) a module-level name that its function declares `global` at the top of its
 * body (`global writer`, then `writer = SummaryWriter()`)? */
bool tl_freq_global_name(TSNode n, const char *src);
/* Does the `if` (condition cond, then block `block`) fill a cache of its object once: the block of
 * `if self.x is None:`, `if not hasattr(self, "x"):` or `if self.x is None or n != self.x.size(0):`
 * that assigns `self.x`, or of `if not self.ready:` that sets `self.ready = True`; the same with a
 * module-level name its function declares `global` (`if _plugin is None: _plugin = build()`)? After
 * the first call the test fails (until the cache no longer fits): the block is rare. */
bool tl_freq_fills_once(TSNode cond, TSNode block, const char *src);

#endif
