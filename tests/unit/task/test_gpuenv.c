/* The visible-device variables narrowed to a task's own GPUs, and the
 * device cgroup asked with access(2): a real cgroup v1 devices controller
 * where this machine has one (as root), with fake device files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/task/gpuenv.h"
#include "binding/util/error.h"
#include "testutil.h"

static const char *narrow(const char *v, int n, uint64_t pos)
{
	static char buf[256];
	char *out;
	ck_assert_int_eq(bnd_gpuenv_narrow(v, n, pos, &out), BND_OK);
	snprintf(buf, sizeof(buf), "%s", out ? out : "(left alone)");
	free(out);
	return buf;
}

START_TEST(narrowed_to_the_tasks_own)
{
	ck_assert_str_eq(bnd_gpuenv_names[1], "CUDA_VISIBLE_DEVICES");
	ck_assert_str_eq(narrow("2,3", 2, 2), "3");
	ck_assert_str_eq(narrow("0,1,2,3", 4, 0x5), "0,2");
	ck_assert_str_eq(narrow("0.0,0.1,1.0", 3, 0x6), "0.1,1.0");
	ck_assert_str_eq(narrow("0,1", 2, 0), "");
	/* Not one entry per step GPU (the user's own), unset, garbage: alone. */
	ck_assert_str_eq(narrow("0", 2, 1), "(left alone)");
	ck_assert_str_eq(narrow(NULL, 2, 1), "(left alone)");
	ck_assert_str_eq(narrow("", 1, 1), "(left alone)");
	ck_assert_str_eq(narrow("\001unreadable CUDA_VISIBLE_DEVICES", 1, 1), "(left alone)");
	ck_assert_str_eq(narrow("0, 1", 2, 1), "(left alone)");
}
END_TEST

/* A child in a v1 devices cgroup that denies fake GPU 1. */
START_TEST(device_cgroup_says_which)
{
	const char *cg = "/sys/fs/cgroup/devices";
	char dir[] = "/tmp/bnd-gpuenv-XXXXXX", grp[256], f0[64], f1[64], f2[64];
	struct stat st;
	if (geteuid() != 0 || stat(cg, &st) || !S_ISDIR(st.st_mode)) {
		printf("# SKIP device cgroup: needs root and a cgroup v1 devices controller\n");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(f0, sizeof(f0), "%s/fakegpu0", dir);
	snprintf(f1, sizeof(f1), "%s/fakegpu1", dir);
	snprintf(f2, sizeof(f2), "%s/missing", dir);
	ck_assert_int_eq(mknod(f0, S_IFCHR | 0666, makedev(195, 0)), 0);
	ck_assert_int_eq(mknod(f1, S_IFCHR | 0666, makedev(195, 1)), 0);
	snprintf(grp, sizeof(grp), "%s/bnd-gpuenv-%d", cg, (int)getpid());
	ck_assert_int_eq(mkdir(grp, 0755), 0);
	char path[300];
	snprintf(path, sizeof(path), "%s/devices.deny", grp);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("c 195:1 rwm\n", fp);
	fclose(fp);
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (c == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", grp);
		fp = fopen(path, "w");
		if (!fp || fprintf(fp, "%d\n", (int)getpid()) < 0 || fclose(fp))
			_exit(2);
		const char *files[4] = { f0, f1, f2, "" };
		uint64_t known, denied = bnd_gpuenv_denied(files, 4, &known);
		_exit(denied == 2 && known == 3 ? 0 : 3);
	}
	int status;
	ck_assert_int_eq(waitpid(c, &status, 0), c);
	rmdir(grp);
	unlink(f0);
	unlink(f1);
	rmdir(dir);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	/* Outside it: nothing denied. */
	const char *none[1] = { "/dev/null" };
	uint64_t known;
	ck_assert(bnd_gpuenv_denied(none, 1, &known) == 0 && known == 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpuenv");
	TCase *tc = tcase_create("gpuenv");
	tcase_add_test(tc, narrowed_to_the_tasks_own);
	tcase_add_test(tc, device_cgroup_says_which);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
