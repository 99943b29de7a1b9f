/* tl_costs.h - measured costs per rule, generated from the newest bench/results file. */
#ifndef TL_COSTS_H
#define TL_COSTS_H

typedef struct {
  const char *code; /* rule code; NULL ends the table */
  const char *text; /* one measurement, with GPU and date */
} tl_cost;

extern const tl_cost tl_costs[];
extern const char tl_costs_source[]; /* the results files used (newest of each card, comma-separated), or "none" */

#endif
