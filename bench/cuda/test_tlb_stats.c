/* test_tlb_stats.c - unit test of the microbenchmarks' statistics and JSON-lines output (no GPU). */
#define _POSIX_C_SOURCE 200809L
#include "tlb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond) \
  do { \
    if (!(cond)) { \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      failures++; \
    } \
  } while (0)

static int near(double a, double b) { return fabs(a - b) < 1e-9 * (1 + fabs(b)); }

/* Runs emit into a temporary file and returns its text (caller frees). */
static char *capture(const struct tlb_result *r, int *rc) {
  FILE *f = tmpfile();
  if (!f) return NULL;
  *rc = tlb_emit(f, r);
  long len = ftell(f);
  rewind(f);
  char *buf = calloc((size_t)len + 1, 1);
  if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) buf[0] = 0;
  fclose(f);
  return buf;
}

int main(void) {
  struct tlb_stats st;

  /* odd count, unsorted input; the input must stay unsorted */
  double odd[] = {5, 1, 4, 2, 3};
  EXPECT(tlb_stats_compute(odd, 5, &st) == 0);
  EXPECT(st.reps == 5 && near(st.median, 3) && near(st.min, 1) && near(st.max, 5));
  EXPECT(near(st.mean, 3));
  EXPECT(near(st.p10, 1.4) && near(st.p90, 4.6)); /* linear interpolation */
  EXPECT(near(st.spread, (4.6 - 1.4) / 3));
  EXPECT(odd[0] == 5 && odd[1] == 1);

  /* even count: median is the mean of the two middle samples */
  double even[] = {10, 2, 8, 4};
  EXPECT(tlb_stats_compute(even, 4, &st) == 0);
  EXPECT(near(st.median, 6) && near(st.min, 2) && near(st.max, 10));

  /* one sample */
  double one[] = {7};
  EXPECT(tlb_stats_compute(one, 1, &st) == 0);
  EXPECT(near(st.median, 7) && near(st.p10, 7) && near(st.p90, 7) && near(st.spread, 0));

  /* no samples is an error */
  EXPECT(tlb_stats_compute(one, 0, &st) == -1 && st.reps == 0);

  /* a zero median gives spread 0, not a division by zero */
  double zeros[] = {0, 0, 0};
  EXPECT(tlb_stats_compute(zeros, 3, &st) == 0 && st.spread == 0);

  /* JSON line: ratio is median(anti) / median(fix); strings are escaped */
  double anti[] = {4, 4, 4}, fix[] = {1, 2, 3};
  struct tlb_result r = {0};
  r.id = "cuda/x";
  r.rule = "TL101";
  r.rule_name = "sync-in-hot-path";
  r.what = "a \"quoted\" word\n";
  r.unit = "ms";
  r.v[0] = (struct tlb_variant){"slow", "anti", "host", anti, 3, "\"gb_per_s\":1.5"};
  r.v[1] = (struct tlb_variant){"fast", "fix", "cuda-event", fix, 3, NULL};
  r.nv = 2;
  r.anti = "slow";
  r.fix = "fast";
  int rc = -2;
  char *line = capture(&r, &rc);
  EXPECT(line != NULL && rc == 0);
  if (line) {
    EXPECT(strstr(line, "\"id\":\"cuda/x\"") != NULL);
    EXPECT(strstr(line, "\"status\":\"ok\"") != NULL);
    EXPECT(strstr(line, "\"what\":\"a \\\"quoted\\\" word\\n\"") != NULL);
    EXPECT(strstr(line, "\"params\":{}") != NULL);
    EXPECT(strstr(line, "\"value\":2}") != NULL);
    EXPECT(strstr(line, "\"gb_per_s\":1.5}") != NULL);
    EXPECT(strstr(line, "\"reps\":3,\"median\":2,") != NULL);
    size_t len = strlen(line);
    EXPECT(len > 0 && line[len - 1] == '\n' && strchr(line, '\n') == line + len - 1);
    free(line);
  }

  /* a zero fix median gives a null ratio (JSON has no Infinity) */
  double zero3[] = {0, 0, 0};
  r.v[1].samples = zero3;
  line = capture(&r, &rc);
  EXPECT(line && strstr(line, "\"value\":null}") != NULL);
  free(line);

  /* a variant without samples is refused */
  r.v[1].n = 0;
  line = capture(&r, &rc);
  EXPECT(rc == -1);
  free(line);

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  puts("tlb stats: all checks passed");
  return 0;
}
