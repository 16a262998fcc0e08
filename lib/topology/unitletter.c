#include "binding/topology/unitletter.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "binding/topology/topology.h"

static const struct {
	char letter;
	int type;
	int kind;
	bool ocs_only;
} letters[] = {
	{ 'N', BND_U_NUMA, BND_KIND_ANY, true },
	{ 'S', BND_U_SOCKET, BND_KIND_ANY, false },
	{ 'X', BND_U_L3, BND_KIND_ANY, true },
	{ 'Y', BND_U_L2, BND_KIND_ANY, true },
	{ 'C', BND_U_CORE, BND_KIND_POWER, false },
	{ 'E', BND_U_CORE, BND_KIND_EFFICIENCY, true },
	{ 'T', BND_U_PU, BND_KIND_ANY, false },
};
#define NLETTERS (sizeof(letters) / sizeof(letters[0]))

static int find(char ch)
{
	char u = (char)toupper((unsigned char)ch);
	for (size_t i = 0; i < NLETTERS; i++)
		if (letters[i].letter == u)
			return (int)i;
	return -1;
}

bool bnd_is_unit_letter(char ch)
{
	return find(ch) >= 0;
}

bool bnd_unit_letter_type(char ch, int *type, int *kind)
{
	int i = find(ch);
	if (i < 0)
		return false;
	*type = letters[i].type;
	*kind = letters[i].kind;
	return true;
}

char bnd_unit_type_letter(int type, int kind)
{
	for (size_t i = 0; i < NLETTERS; i++)
		if (letters[i].type == type &&
		    (letters[i].kind == BND_KIND_ANY || letters[i].kind == kind))
			return letters[i].letter;
	return 0;
}

bool bnd_unit_letter_ocs_only(char ch)
{
	int i = find(ch);
	return i >= 0 && letters[i].ocs_only;
}

bool bnd_packed_unit_name(const char *unit)
{
	size_t n = unit ? strlen(unit) : 0;
	if (n < 1 || n > 2)
		return false;
	char lvl = unit[n - 1];
	if (!isupper((unsigned char)lvl) || find(lvl) < 0)
		return false;
	if (n == 1)
		return true;
	/* A kind prefix on a level that is itself a core kind is meaningless. */
	return (unit[0] == 'C' || unit[0] == 'E') && lvl != 'C' && lvl != 'E';
}

void bnd_packed_unit_names(char sep, char *buf, size_t buflen)
{
	/* From the smallest unit up, as the documents list them. */
	static const char walk[] = "TCESXYN";
	size_t n = 0;
	if (!buflen)
		return;
	buf[0] = '\0';
	for (const char *l = walk; *l; l++) {
		const char *prefix[3] = { "", "C", "E" };
		int nforms = (*l == 'C' || *l == 'E') ? 1 : 3;
		for (int f = 0; f < nforms && n < buflen; f++) {
			int w = snprintf(buf + n, buflen - n, "%s%s%c", n ? " " : "", prefix[f], *l);
			if (n && w > 0 && n < buflen)
				buf[n] = sep;
			n += w > 0 ? (size_t)w : 0;
		}
	}
}
