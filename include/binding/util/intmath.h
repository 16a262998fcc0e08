/* Integer arithmetic that cannot overflow on counts taken from outside
 * (task counts, CPUs per task: Slurm's or the job's environment). */
#ifndef BINDING_INTMATH_H
#define BINDING_INTMATH_H

/* a / b rounded up, for a >= 0 and b >= 1: (a + b - 1) / b overflows when
 * a is near INT_MAX. */
static inline int bnd_div_ceil(int a, int b)
{
	return a / b + (a % b != 0);
}

#endif
