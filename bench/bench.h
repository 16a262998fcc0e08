/* What every bench program needs: a monotonic clock in microseconds and
 * doubles sorted for medians. Header-only: each bench is one program. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <time.h>

static inline double bench_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* qsort's comparison of doubles. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
