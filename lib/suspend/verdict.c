#include "binding/suspend/verdict.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binding/util/error.h"

int bnd_suspend_verdict(const struct bnd_suspend_obs *o)
{
	if (o->thawed)
		return 0;
	if (o->job == BND_JOB_SUSPENDED)
		return 1;
	if (o->job != BND_JOB_UNKNOWN)
		return 0;
	return o->freezer == BND_FREEZE_FROZEN || o->freezer == BND_FREEZE_FREEZING;
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = pread(fd, buf, len - 1, 0);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int bnd_freezer_find(const char *proc_root, const char *cgroup_root, pid_t pid,
		     char *path, size_t pathlen, int *v2)
{
	char file[256], line[1024], v2path[1024] = "";
	int have_v2 = 0;
	path[0] = '\0';
	if (v2)
		*v2 = 0;
	snprintf(file, sizeof(file), "%s/%d/cgroup", proc_root, (int)pid);
	FILE *f = fopen(file, "re");
	if (!f)
		return BND_ESYS;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrls = c1 + 1, *cg = c2 + 1;
		if (c1 == line + 1 && line[0] == '0' && !*ctrls) {
			snprintf(v2path, sizeof(v2path), "%s", cg);
			have_v2 = 1;
			continue;
		}
		/* "freezer" alone or in a comma-joined list */
		/* The root cgroup (linuxproc on a cgroup v1 host) has no
		 * freezer.state and is never frozen: no freezer. */
		for (const char *p = ctrls; strcmp(cg, "/") && (p = strstr(p, "freezer")); p += 7)
			if ((p == ctrls || p[-1] == ',') && (p[7] == '\0' || p[7] == ',')) {
				snprintf(path, pathlen, "%s/freezer%s/freezer.state", cgroup_root, cg);
				fclose(f);
				return BND_OK;
			}
	}
	fclose(f);
	/* A pure cgroup v2 host: the root has cgroup.controllers. On a hybrid
	 * one, the v2 tree (unified/) freezes nothing Slurm does. */
	char probe[1100];
	snprintf(probe, sizeof(probe), "%s/cgroup.controllers", cgroup_root);
	if (have_v2 && access(probe, R_OK) == 0) {
		snprintf(path, pathlen, "%s%s/cgroup.events", cgroup_root,
			 strcmp(v2path, "/") ? v2path : "");
		if (v2)
			*v2 = 1;
		return BND_OK;
	}
	return BND_ENOFIT;
}

enum bnd_freeze bnd_freezer_read(const char *path)
{
	char buf[512];
	if (!path || !*path || read_small(path, buf, sizeof(buf)))
		return BND_FREEZE_NONE;
	return bnd_freezer_parse(buf);
}

enum bnd_freeze bnd_freezer_parse(const char *buf)
{
	if (!strncmp(buf, "FROZEN", 6))
		return BND_FREEZE_FROZEN;
	if (!strncmp(buf, "FREEZING", 8))
		return BND_FREEZE_FREEZING;
	if (!strncmp(buf, "THAWED", 6))
		return BND_FREEZE_THAWED;
	const char *fz = strstr(buf, "frozen ");
	if (fz && (fz == buf || fz[-1] == '\n'))
		return fz[7] == '1' ? BND_FREEZE_FROZEN : BND_FREEZE_THAWED;
	return BND_FREEZE_NONE;
}

int bnd_task_stopped(const char *proc_root, pid_t pid)
{
	char file[256], buf[1024];
	snprintf(file, sizeof(file), "%s/%d/stat", proc_root, (int)pid);
	if (read_small(file, buf, sizeof(buf)))
		return 0;
	char c = bnd_task_state_parse(buf);
	return c == 'T' || c == 't';
}

char bnd_task_state_parse(const char *stat_text)
{
	const char *p = strrchr(stat_text, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}
