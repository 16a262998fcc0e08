/* Device file -> PCI bus id: the site's map (by name and by device
 * number), the NVIDIA driver's record and the sysfs link, each in a tree
 * of this test's own; what is tried is named when nothing knows a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "binding/topology/gpudev.h"
#include "binding/util/error.h"
#include "testutil.h"

static char root[64];

static void mk(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (text) {
		FILE *fp = fopen(p, "w");
		ck_assert_ptr_nonnull(fp);
		fputs(text, fp);
		fclose(fp);
	}
}

static int dev(const char *rel, unsigned maj, unsigned min)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mk(rel, NULL);
	return mknod(p, S_IFCHR | 0666, makedev(maj, min));
}

static const char *busid_of(const struct bnd_gpu_devmap *m, const char *rel, const char **how)
{
	static char bus[BND_GPU_BUSID_LEN];
	char p[256], proc[128], sys[128], err[BND_ERRLEN];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	struct bnd_gpudev_roots r = { proc, sys };
	if (bnd_gpudev_busid(m, &r, p, bus, how, err, sizeof(err)) != BND_OK) {
		snprintf(bus, sizeof(bus), "-");
		ck_assert_msg(strstr(err, "gpu_devices="), "%s", err);
	}
	return bus;
}

START_TEST(devmap_text)
{
	struct bnd_gpu_devmap m = { 0 };
	char err[BND_ERRLEN], buf[512];
	ck_assert_int_eq(bnd_gpu_devmap_add(&m, "/dev/fakegpu0=05:00.0,/dev/fakegpu1=0000:0A:00.0",
					    err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_gpu_devmap_add(&m, "/dev/x=zz:00.0", err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "/dev/x: \"zz:00.0\" is not a PCI bus id"), "%s", err);
	ck_assert_int_eq(m.n, 2);
	const char *bad[] = { "", "dev/a=00:01.0", "/dev/a", "/dev/a=", "=00:01.0",
			      "/dev/a=00:01.0,", "/dev/a=00:01.0,/dev/a=00:02.0",
			      "/dev/fakegpu0=00:07.0", NULL };
	for (int i = 0; bad[i]; i++)
		ck_assert_msg(bnd_gpu_devmap_add(&m, bad[i], err, sizeof(err)) == BND_EINVAL &&
			      strstr(err, "gpu_devices"), "\"%s\": %s", bad[i], err);
	ck_assert_int_eq(m.n, 2);
	ck_assert_int_eq(bnd_gpu_devmap_text(&m, buf, sizeof(buf)), BND_OK);
	ck_assert_str_eq(buf, "/dev/fakegpu0=0000:05:00.0,/dev/fakegpu1=0000:0a:00.0");
}
END_TEST

START_TEST(rules)
{
	snprintf(root, sizeof(root), "/tmp/bnd-gpudev-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	struct bnd_gpu_devmap m = { 0 };
	char err[BND_ERRLEN], entry[256];
	const char *how = NULL;
	/* Only by name without a device behind it. */
	snprintf(entry, sizeof(entry), "%s/dev/ghost=00:05.0", root);
	ck_assert_int_eq(bnd_gpu_devmap_add(&m, entry, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(busid_of(&m, "dev/ghost", &how), "0000:00:05.0");
	ck_assert_str_eq(how, "site map");
	ck_assert_str_eq(busid_of(&m, "dev/none", &how), "-");
	ck_assert_ptr_null(how);
	if (geteuid() != 0 || dev("dev/nvidia3", 195, 3)) {
		fprintf(stderr, "# SKIP device-number rules: mknod needs root (%s)\n", strerror(errno));
		return;
	}
	/* NVIDIA: the GPU whose information says Device Minor 3. */
	mk("proc/driver/nvidia/gpus/0000:3b:00.0/information",
	   "Model:\t\t Tesla V100-SXM3-32GB-H\nIRQ:\t\t 42\nDevice Minor:\t 3\nBus Location:\t 0000:3b:00.0\n");
	mk("proc/driver/nvidia/gpus/0000:34:00.0/information", "Device Minor:\t 0\n");
	ck_assert_str_eq(busid_of(&m, "dev/nvidia3", &how), "0000:3b:00.0");
	ck_assert_str_eq(how, "NVIDIA driver");
	ck_assert_int_eq(dev("dev/nvidia7", 195, 7), 0);
	ck_assert_str_eq(busid_of(&m, "dev/nvidia7", &how), "-");
	/* DRM and any char device with a PCI device behind it: the sysfs link. */
	ck_assert_int_eq(dev("dev/dri/renderD130", 226, 130), 0);
	mk("sys/devices/pci0000:00/0000:00:02.0/0000:c9:00.0/x", "");
	mk("sys/dev/char/x", NULL);
	char link[256];
	snprintf(link, sizeof(link), "%s/sys/dev/char/226:130", root);
	mkdir(link, 0755);
	snprintf(link, sizeof(link), "%s/sys/dev/char/226:130/device", root);
	ck_assert_int_eq(symlink("../../../devices/pci0000:00/0000:00:02.0/0000:c9:00.0", link), 0);
	ck_assert_str_eq(busid_of(&m, "dev/dri/renderD130", &how), "0000:c9:00.0");
	ck_assert_str_eq(how, "sysfs");
	/* A platform device behind the link is no PCI device. */
	ck_assert_int_eq(dev("dev/other", 240, 1), 0);
	snprintf(link, sizeof(link), "%s/sys/dev/char/240:1", root);
	mkdir(link, 0755);
	snprintf(link, sizeof(link), "%s/sys/dev/char/240:1/device", root);
	ck_assert_int_eq(symlink("../../../devices/platform/serial8250", link), 0);
	ck_assert_str_eq(busid_of(&m, "dev/other", &how), "-");
	/* The site's word wins over the driver's, and matches another name of
	 * the same device (a symlink, a second node). */
	snprintf(entry, sizeof(entry), "%s/dev/alias3=0000:99:00.0", root);
	ck_assert_int_eq(bnd_gpu_devmap_add(&m, entry, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(dev("dev/alias3", 195, 3), 0);
	ck_assert_str_eq(busid_of(&m, "dev/nvidia3", &how), "0000:99:00.0");
	ck_assert_str_eq(how, "site map");
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpudev");
	TCase *tc = tcase_create("gpudev");
	tcase_add_test(tc, devmap_text);
	tcase_add_test(tc, rules);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
