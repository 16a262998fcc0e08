/* sbind draw: the node's topology with who holds each core, as an hwloc
 * XML for lstopo (report/draw.h), or rendered by lstopo itself. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/report/draw.h"
#include "binding/state/state.h"
#include "binding/util/error.h"
#include "binding/util/textfile.h"
#include "sbind.h"
#include "sbind_opts.h"

extern char **environ;

/* lstopo ($SBIND_LSTOPO, else from PATH) renders the XML: svg is its
 * native SVG (each object an element with an id), png through cairo. */
static int render(const char *xml, size_t len, const char *format, const char *output)
{
	char tmp[] = "/tmp/sbind-draw-XXXXXX.xml";
	int fd = mkstemps(tmp, 4);
	if (fd < 0 || write(fd, xml, len) != (ssize_t)len || close(fd)) {
		fprintf(stderr, "sbind draw: %s: %s\n", tmp, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return SBIND_EXIT_ERROR;
	}
	const char *lstopo = getenv("SBIND_LSTOPO");
	lstopo = lstopo && *lstopo ? lstopo : "lstopo";
	char *argv[] = { (char *)lstopo, "--if", "xml", "-i", tmp, "--of",
			 !strcmp(format, "svg") ? "nativesvg" : "png", "-f", (char *)output, NULL };
	pid_t pid;
	int status = 0, e = posix_spawnp(&pid, lstopo, NULL, NULL, argv, environ);
	if (!e && waitpid(pid, &status, 0) < 0)
		e = errno;
	unlink(tmp);
	if (e || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "sbind draw: %s could not render the %s (%s)\n", lstopo, format,
			e ? strerror(e) : "it failed");
		return SBIND_EXIT_ERROR;
	}
	return SBIND_EXIT_OK;
}

static int write_xml(const char *xml, size_t len, const char *output)
{
	char err[BND_ERRLEN] = "";
	if (!strcmp(output, "-")) {
		fwrite(xml, 1, len, stdout);
		return SBIND_EXIT_OK;
	}
	if (bnd_textfile_replace(output, xml, len, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "sbind draw: %s\n", err);
		return SBIND_EXIT_ERROR;
	}
	return SBIND_EXIT_OK;
}

struct draw_opts {
	const char *state, *source, *format, *output;
};

static int draw_set(void *ctx, int id, const char *arg)
{
	struct draw_opts *o = ctx;
	*(id == 'S' ? &o->state : id == 't' ? &o->source : id == 'f' ? &o->format : &o->output) = arg;
	return 0;
}

int sbind_cmd_draw(int argc, char **argv)
{
	struct draw_opts d = { .format = "xml", .output = "-" };
	int prc = sbind_getopt("draw", argc, argv, NULL, NULL, draw_set, &d, NULL);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	const char *state = d.state, *source = d.source, *format = d.format, *output = d.output;
	char err[BND_ERRLEN] = "";
	const char *dir = sbind_state_dir(state);
	struct bnd_state_file f;
	if (sbind_state_read("draw", dir, &f) != SBIND_EXIT_OK)
		return SBIND_EXIT_ERROR;
	/* The records' GPU indices are the plugin's topology's (its cache). */
	struct bnd_topology *t = sbind_load_topology(source, dir);
	struct bnd_draw_in in = { source, &f, t };
	char *xml = NULL;
	size_t len = 0;
	int rc = bnd_draw_xml(&in, &xml, &len, err, sizeof(err));
	bnd_topology_free(t);
	bnd_statefile_free(&f);
	if (rc) {
		fprintf(stderr, "sbind draw: %s\n", err);
		return sbind_exit_of(rc);
	}
	rc = !strcmp(format, "xml") ? write_xml(xml, len, output) : render(xml, len, format, output);
	free(xml);
	return rc;
}
