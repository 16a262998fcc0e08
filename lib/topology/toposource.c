/* Where an hwloc topology comes from: this machine, a synthetic
 * description or an XML export (toposource.h). */
#include "binding/topology/toposource.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "binding/util/error.h"
#include "binding/util/textfile.h"

/* hwloc wants PUs as the last level; "pack:2 core:2" means one PU per core. */
static const char *with_pu_level(const char *desc, char *buf, size_t len)
{
	size_t n = strlen(desc);
	while (n && isspace((unsigned char)desc[n - 1]))
		n--;
	size_t b = n;
	while (b && !isspace((unsigned char)desc[b - 1]))
		b--;
	if (!strncasecmp(desc + b, "pu:", 3) || n + 6 >= len)
		return desc;
	snprintf(buf, len, "%.*s pu:1", (int)n, desc);
	return buf;
}

/* hwloc's built-in XML parser (without the libxml2 plugin) rejects files
 * with CRLF line ends, which some exported topologies have: the file is
 * read here and handed over as a buffer with the CRs dropped. The buffer
 * must outlive hwloc_topology_load(), so the caller frees *xml. */
static int set_xml(hwloc_topology_t topo, const char *path, char **xml,
		   char *err, size_t errlen)
{
	size_t len;
	char *buf, why[BND_ERRLEN];
	int rc = bnd_textfile_read(path, (size_t)INT_MAX - 1, &buf, &len, why, sizeof(why));
	if (rc == BND_ENOMEM)
		return bnd_fail(err, errlen, BND_ENOMEM, "topology: out of memory");
	if (rc != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL, "topology %s", why);
	*xml = buf;
	size_t k = 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] != '\r')
			buf[k++] = buf[i];
	buf[k] = '\0';
	if (k > INT_MAX - 1 || hwloc_topology_set_xmlbuffer(topo, buf, (int)k + 1) < 0)
		return bnd_fail(err, errlen, BND_EINVAL,
				"topology %s: hwloc cannot read this XML", path);
	return BND_OK;
}

int bnd_toposource_set(hwloc_topology_t topo, const char *source, char **xml, char *err,
		       size_t errlen)
{
	char buf[1024];
	struct stat st;
	if (!source || !*source)
		return BND_OK;
	if (stat(source, &st) == 0 && !S_ISDIR(st.st_mode))
		return set_xml(topo, source, xml, err, errlen);
	if (!strchr(source, ':') && !strchr(source, ' '))
		return bnd_fail(err, errlen, BND_EINVAL,
				"topology \"%s\": no such file, and not a synthetic description "
				"(expected e.g. \"pack:2 core:4 pu:2\" or FILE.xml)", source);
	if (hwloc_topology_set_synthetic(topo, with_pu_level(source, buf, sizeof(buf))) < 0)
		return bnd_fail(err, errlen, BND_EINVAL,
				"topology \"%s\": invalid hwloc synthetic description "
				"(expected e.g. \"pack:2 core:4 pu:2\")", source);
	return BND_OK;
}

