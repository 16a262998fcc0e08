#include "binding/topology/topostring.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "binding/topology/unitletter.h"
#include "binding/util/error.h"

/* Upper-case letter of a unit in the given form, or 0 when it is not
 * printed there: a T only under a core with several threads, the memory
 * units (N X Y) only in the full OCS form, an E core as E in both OCS
 * forms, where Grid Engine writes it as C. */
static char letter(const struct bnd_topology *t, const struct bnd_unit *u,
		   enum bnd_topo_format fmt)
{
	if (u->type == BND_U_PU && t->cores[t->pu_core[u->index]].npus < 2)
		return 0;
	char ch = bnd_unit_type_letter(u->type, u->kind);
	if (fmt == BND_TOPO_OCS || !bnd_unit_letter_ocs_only(ch))
		return ch;
	if (u->type != BND_U_CORE)
		return 0;
	return fmt == BND_TOPO_OCS_CPU ? ch : bnd_unit_type_letter(BND_U_CORE, BND_KIND_POWER);
}

/* The form a string is written in: N, X or Y only appear in the full OCS
 * form; E without them in OCS's form without memory units (what OCS
 * prints for a host without NUMA or cache information); else Grid
 * Engine's (which an OCS string of a non-hybrid host without memory units
 * equals letter for letter). */
static enum bnd_topo_format form_of(const char *str)
{
	enum bnd_topo_format fmt = BND_TOPO_SGE;
	for (const char *s = str; *s; s++) {
		int type, kind;
		if (!bnd_unit_letter_ocs_only(*s) || !bnd_unit_letter_type(*s, &type, &kind))
			continue;
		if (type != BND_U_CORE)
			return BND_TOPO_OCS;
		fmt = BND_TOPO_OCS_CPU;
	}
	return fmt;
}

static const char *form_name(enum bnd_topo_format fmt)
{
	switch (fmt) {
	case BND_TOPO_OCS: return "OCS form";
	case BND_TOPO_OCS_CPU: return "OCS form without memory units";
	default: return "Grid Engine form";
	}
}

static bool pu_taken(const struct bnd_topology *t, const bnd_cpuset_t *taken, int pu)
{
	return taken && bnd_cpuset_isset(taken, t->pu_os[pu]);
}

/* Both forms agree (Grid Engine's own example after linear:2 on a 2x2
 * host is "sccSCC"): a container is lower case once all below it is taken. */
static bool lower(const struct bnd_topology *t, const struct bnd_unit *u,
		  const bnd_cpuset_t *taken)
{
	if (!taken)
		return false;
	int first = u->pu_first, n = u->pu_count;
	switch (u->type) {
	case BND_U_CORE:
		for (int p = first; p < first + n; p++)
			if (pu_taken(t, taken, p))
				return true;
		return false;
	case BND_U_PU:
		return pu_taken(t, taken, u->index);
	default:
		if (n == 0)
			return false;
		for (int p = first; p < first + n; p++)
			if (!pu_taken(t, taken, p))
				return false;
		return true;
	}
}

size_t bnd_topostring_length(const struct bnd_topology *t, enum bnd_topo_format fmt)
{
	size_t n = 0;
	for (int i = 0; i < t->nunits; i++)
		if (letter(t, &t->units[i], fmt))
			n++;
	return n;
}

int bnd_topostring_format(const struct bnd_topology *t, enum bnd_topo_format fmt,
			  const bnd_cpuset_t *taken, char *buf, size_t buflen)
{
	size_t need = bnd_topostring_length(t, fmt) + 1;
	if (!buf || buflen < need) {
		if (buf && buflen)
			buf[0] = '\0';
		return BND_EINVAL;
	}
	size_t k = 0;
	for (int i = 0; i < t->nunits; i++) {
		const struct bnd_unit *u = &t->units[i];
		char ch = letter(t, u, fmt);
		if (!ch)
			continue;
		buf[k++] = lower(t, u, taken) ? (char)tolower((unsigned char)ch) : ch;
	}
	buf[k] = '\0';
	return BND_OK;
}

static void take_range(const struct bnd_topology *t, int first, int n, bnd_cpuset_t *taken)
{
	for (int p = first; p < first + n; p++)
		bnd_cpuset_set(taken, t->pu_os[p]);
}

int bnd_topostring_parse_mask(const struct bnd_topology *t, const char *str,
			      bnd_cpuset_t *taken, char *err, size_t errlen)
{
	bnd_cpuset_zero(taken);
	enum bnd_topo_format fmt = form_of(str);
	const char *form = form_name(fmt);
	size_t len = strlen(str), pos = 0;
	for (int i = 0; i < t->nunits; i++) {
		const struct bnd_unit *u = &t->units[i];
		char want = letter(t, u, fmt);
		if (!want)
			continue;
		if (pos >= len)
			return bnd_fail(err, errlen, BND_EINVAL,
					"topology string \"%s\" (%s) ends at position %zu, "
					"expected '%c' there (the topology is %zu letters long)",
					str, form, pos + 1, want, bnd_topostring_length(t, fmt));
		char got = str[pos];
		if (toupper((unsigned char)got) != want)
			return bnd_fail(err, errlen, BND_EINVAL,
					"topology string \"%s\" (%s): position %zu is '%c', "
					"expected '%c'", str, form, pos + 1, got, want);
		if (islower((unsigned char)got)) {
			if (u->type == BND_U_PU)
				bnd_cpuset_set(taken, u->os_index);
			else
				take_range(t, u->pu_first, u->pu_count, taken);
		}
		pos++;
	}
	if (pos < len)
		return bnd_fail(err, errlen, BND_EINVAL,
				"topology string \"%s\" (%s): position %zu is '%c', "
				"expected the end (the topology is %zu letters long)",
				str, form, pos + 1, str[pos], pos);
	return BND_OK;
}

/* Two letters per core at most (S and C), two brackets per node. */
size_t bnd_topostring_numa_size(const struct bnd_topology *t)
{
	return 2 * (size_t)t->ncores + 2 * (size_t)t->nnuma + 1;
}

int bnd_topostring_numa(const struct bnd_topology *t, const bnd_cpuset_t *taken,
			char *buf, size_t buflen)
{
	size_t k = 0;
	if (!buf || !buflen)
		return BND_EINVAL;
	for (int n = 0; n < t->nnuma; n++) {
		if (k + 1 >= buflen)
			goto small;
		buf[k++] = '[';
		for (int c = 0; c < t->ncores; c++) {
			const struct bnd_core *co = &t->cores[c];
			if (co->numa != n)
				continue;
			if (k + 3 >= buflen)
				goto small;
			if (co->core == 0)
				buf[k++] = 'S';
			bool low = false;
			for (int p = co->pu_first; p < co->pu_first + co->npus && !low; p++)
				low = pu_taken(t, taken, p);
			buf[k++] = low ? 'c' : 'C';
		}
		if (k + 1 >= buflen)
			goto small;
		buf[k++] = ']';
	}
	buf[k] = '\0';
	return BND_OK;
small:
	buf[0] = '\0';
	return BND_EINVAL;
}
