/* proc: start times, liveness (exited, zombie, recycled pid), boot id. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/proc.h"
#include "testutil.h"

/* Field 22 of /proc/PID/stat read the plain way, with a comm free of
 * spaces and parentheses. */
static unsigned long long start_by_scanf(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	unsigned long long v = 0;
	int n = fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
		       "%*d %*d %*d %*d %llu", &v);
	fclose(f);
	ck_assert_int_eq(n, 1);
	return v;
}

START_TEST(start_time_of_self)
{
	unsigned long long s = 0;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_proc_start_time(getpid(), &s, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_uint_eq(s, start_by_scanf(getpid()));
	ck_assert_int_eq(bnd_proc_alive(getpid(), s), 1);
	ck_assert_int_eq(bnd_proc_alive(getpid(), s + 1), 0);
	ck_assert_int_eq(bnd_proc_alive(0, s), 0);
	ck_assert_int_eq(bnd_proc_alive(-1, s), 0);
	ck_assert_int_eq(bnd_proc_start_time(-5, &s, err, sizeof(err)), BND_ESYS);
}
END_TEST

/* A command name with spaces and ')' must not shift the fields. */
START_TEST(start_time_with_odd_command_name)
{
	int fds[2], renamed[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(pipe(renamed), 0);
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (c == 0) {
		char b;
		prctl(PR_SET_NAME, "x) 1 2 (y) z");
		close(fds[1]);
		/* renamed: tell the parent, then return when it closes its end */
		_exit(write(renamed[1], "r", 1) != 1 || read(fds[0], &b, 1) < 0);
	}
	close(fds[0]);
	close(renamed[1]);
	char b, path[64], comm[64] = "";
	ck_assert_int_eq(read(renamed[0], &b, 1), 1);
	close(renamed[0]);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)c);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	ck_assert_msg(strstr(comm, "x) 1 2 (y) z"), "comm is %s", comm);
	unsigned long long s = 0, mine = start_by_scanf(getpid());
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_proc_start_time(c, &s, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_uint_ge(s, mine);
	ck_assert_int_eq(bnd_proc_alive(c, s), 1);
	close(fds[1]);
	ck_assert_int_eq(waitpid(c, NULL, 0), c);
	ck_assert_int_eq(bnd_proc_alive(c, s), 0);
}
END_TEST

START_TEST(zombie_and_reaped_are_dead)
{
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (c == 0) {
		pause();
		_exit(0);
	}
	unsigned long long s = 0;
	ck_assert_int_eq(bnd_proc_start_time(c, &s, NULL, 0), BND_OK);
	ck_assert_int_eq(bnd_proc_alive(c, s), 1);
	kill(c, SIGKILL);
	/* until reaped it is a zombie: /proc/PID/stat still exists */
	siginfo_t si;
	ck_assert_int_eq(waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT), 0);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)c);
	ck_assert_int_eq(access(path, R_OK), 0);
	ck_assert_int_eq(bnd_proc_alive(c, s), 0);
	ck_assert_int_eq(waitpid(c, NULL, 0), c);
	ck_assert_int_eq(bnd_proc_alive(c, s), 0);
	ck_assert_int_eq(bnd_proc_start_time(c, &s, NULL, 0), BND_ESYS);
}
END_TEST

START_TEST(boot_id_is_the_kernels)
{
	char id[BND_BOOT_ID_LEN], want[128] = "";
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_proc_boot_id(id, sizeof(id), err, sizeof(err)) == BND_OK, "%s", err);
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	ck_assert_str_eq(id, want);
	ck_assert_uint_eq(strlen(id), 36);
	char small[8];
	ck_assert_int_eq(bnd_proc_boot_id(small, sizeof(small), NULL, 0), BND_ESYS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("proc");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, start_time_of_self);
	tcase_add_test(tc, start_time_with_odd_command_name);
	tcase_add_test(tc, zombie_and_reaped_are_dead);
	tcase_add_test(tc, boot_id_is_the_kernels);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
