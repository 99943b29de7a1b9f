/* tl_render_concise.c - the concise output format: one line per finding, no summary. */
#include "tl_render.h"

void tl_render_concise(FILE *out, const tl_analysis *a, const bool *skip, const tl_output_opts *o) {
  size_t n = tl_analysis_finding_count(a);
  for (size_t i = 0; i < n; i++)
    if (!skip || !skip[i]) tl_output_headline(out, tl_analysis_finding(a, i), o);
}
