/* Device file -> PCI bus id (gpudev.h). */
#include "binding/topology/gpudev.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "binding/topology/topogpu.h"
#include "binding/util/error.h"

/* The character major the NVIDIA driver registers for /dev/nvidia<N>. */
#define NVIDIA_MAJOR 195

static int add_one(struct bnd_gpu_devmap *m, const char *item, size_t n, char *err,
		   size_t errlen)
{
	char buf[BND_GPU_DEVPATH_LEN + 64];
	if (n >= sizeof(buf))
		return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: entry \"%.40s...\" is too long",
				item);
	memcpy(buf, item, n);
	buf[n] = '\0';
	char *eq = strrchr(buf, '=');
	if (!eq || buf[0] != '/' || eq == buf + 1)
		return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: \"%s\" is not "
				"/dev/PATH=BUSID (e.g. /dev/nvidia0=0000:3b:00.0)", buf);
	*eq = '\0';
	if (strlen(buf) >= BND_GPU_DEVPATH_LEN)
		return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: path \"%.40s...\" is longer "
				"than %d characters", buf, BND_GPU_DEVPATH_LEN - 1);
	char bus[BND_GPU_BUSID_LEN], why[BND_ERRLEN];
	if (bnd_gpu_busid_normalize(eq + 1, bus, why, sizeof(why)) != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: %s: %s", buf, why);
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].path, buf))
			return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: %s is mapped twice", buf);
	if (m->n >= BND_MAX_GPUS)
		return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: more than %d devices",
				BND_MAX_GPUS);
	memcpy(m->e[m->n].path, buf, strlen(buf) + 1); /* shorter, checked above */
	memcpy(m->e[m->n].busid, bus, sizeof(bus));
	m->n++;
	return BND_OK;
}

int bnd_gpu_devmap_add(struct bnd_gpu_devmap *m, const char *text, char *err, size_t errlen)
{
	struct bnd_gpu_devmap next = *m;
	const char *p = text ? text : "";
	if (!*p)
		return bnd_fail(err, errlen, BND_EINVAL, "gpu_devices: empty (expected "
				"/dev/PATH=BUSID[,/dev/PATH=BUSID...])");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		int rc = add_one(&next, p, n, err, errlen);
		if (rc != BND_OK)
			return rc;
		if (!comma)
			break;
		p = comma + 1;
	}
	*m = next;
	return BND_OK;
}

int bnd_gpu_devmap_text(const struct bnd_gpu_devmap *m, char *buf, size_t buflen)
{
	size_t used = 0;
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	for (int i = 0; i < m->n; i++) {
		int k = snprintf(buf + used, buflen - used, "%s%s=%s", i ? "," : "", m->e[i].path,
				 m->e[i].busid);
		if (k < 0 || (size_t)k >= buflen - used)
			return BND_EINVAL;
		used += (size_t)k;
	}
	return BND_OK;
}

static int same_device(const char *a, const struct stat *sb)
{
	struct stat sa;
	return sb && stat(a, &sa) == 0 && S_ISCHR(sa.st_mode) && sa.st_rdev == sb->st_rdev;
}

static int from_map(const struct bnd_gpu_devmap *m, const char *path, const struct stat *st,
		    char busid[BND_GPU_BUSID_LEN])
{
	for (int i = 0; m && i < m->n; i++)
		if (!strcmp(m->e[i].path, path) || same_device(m->e[i].path, st)) {
			memcpy(busid, m->e[i].busid, BND_GPU_BUSID_LEN);
			return 1;
		}
	return 0;
}

/* "Device Minor:	3" in the NVIDIA driver's information file of one GPU. */
static int nvidia_minor_of(const char *file)
{
	FILE *fp = fopen(file, "re");
	char line[256];
	int minor = -1;
	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "Device Minor:", 13)) {
			char *end;
			long v = strtol(line + 13, &end, 10);
			if (end != line + 13 && v >= 0 && v < INT_MAX)
				minor = (int)v;
		}
	if (fp)
		fclose(fp);
	return minor;
}

static int from_nvidia(const char *proc, unsigned minor, char busid[BND_GPU_BUSID_LEN])
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/driver/nvidia/gpus", proc);
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while (d && !found && (e = readdir(d))) {
		char file[PATH_MAX + 300];
		if (e->d_name[0] == '.' ||
		    bnd_gpu_busid_normalize(e->d_name, busid, NULL, 0) != BND_OK)
			continue;
		snprintf(file, sizeof(file), "%s/%s/information", dir, e->d_name);
		found = nvidia_minor_of(file) == (int)minor;
	}
	if (d)
		closedir(d);
	return found;
}

static int from_sysfs(const char *sys, const struct stat *st, char busid[BND_GPU_BUSID_LEN])
{
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof(link), "%s/dev/char/%u:%u/device", sys, major(st->st_rdev),
		 minor(st->st_rdev));
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	return bnd_gpu_busid_normalize(base ? base + 1 : target, busid, NULL, 0) == BND_OK;
}

int bnd_gpudev_busid(const struct bnd_gpu_devmap *m, const struct bnd_gpudev_roots *roots,
		     const char *path, char busid[BND_GPU_BUSID_LEN], const char **how, char *err,
		     size_t errlen)
{
	struct stat st;
	int serr = path && stat(path, &st) != 0 ? errno : 0;
	int have = path && !serr && S_ISCHR(st.st_mode);
	const char *proc = roots && roots->proc ? roots->proc : "/proc";
	const char *sys = roots && roots->sys ? roots->sys : "/sys";
	const char *rule = NULL;
	if (from_map(m, path ? path : "", have ? &st : NULL, busid))
		rule = "site map";
	else if (have && major(st.st_rdev) == NVIDIA_MAJOR && from_nvidia(proc, minor(st.st_rdev), busid))
		rule = "NVIDIA driver";
	else if (have && from_sysfs(sys, &st, busid))
		rule = "sysfs";
	if (how)
		*how = rule;
	if (rule)
		return BND_OK;
	if (!have)
		return bnd_fail(err, errlen, BND_EINVAL, "%s: %s, and not in gpu_devices= "
				"(plugstack.conf)", path ? path : "",
				serr ? strerror(serr) : "not a character device");
	return bnd_fail(err, errlen, BND_EINVAL,
			"%s (device %u:%u): no driver record of its PCI bus id (%s/driver/nvidia/gpus, "
			"%s/dev/char/%u:%u/device) and not in gpu_devices= (plugstack.conf)", path,
			major(st.st_rdev), minor(st.st_rdev), proc, sys, major(st.st_rdev),
			minor(st.st_rdev));
}
