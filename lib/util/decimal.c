#include "binding/util/decimal.h"

size_t bnd_decimal_u64(char *out, uint64_t v)
{
	char r[BND_DECIMAL_MAX];
	size_t n = 0;
	do {
		r[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = r[n - 1 - i];
	return n;
}
