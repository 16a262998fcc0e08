/* The site's submit= switch read as the filter reads it on a submit host:
 * slurm.conf's PlugStackConfig (or plugstack.conf beside it), the
 * plugin's own line there (also through include), its submit= and
 * enabled=; real files in a scratch directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/submit/siteconf.h"
#include "binding/util/error.h"
#include "testutil.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_siteconf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static enum bnd_submit_mode mode_of(char *why, size_t len)
{
	char conf[256];
	enum bnd_submit_mode m = (enum bnd_submit_mode)-1;
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	bnd_siteconf_submit_mode(conf, &m, why, len);
	return m;
}

START_TEST(plugstack_path)
{
	char out[256], err[BND_ERRLEN];
	ck_assert_int_eq(bnd_siteconf_plugstack_path("/etc/slurm/slurm.conf", "ClusterName=x\n",
						     out, sizeof(out), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "/etc/slurm/plugstack.conf");
	ck_assert_int_eq(bnd_siteconf_plugstack_path("/etc/slurm/slurm.conf",
						     "# PlugStackConfig=/nope\n"
						     "SlurmUser=root plugstackconfig=/opt/p.conf  \n",
						     out, sizeof(out), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "/opt/p.conf");
	ck_assert_int_eq(bnd_siteconf_plugstack_path("slurm.conf", "", out, sizeof(out), err,
						     sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "./plugstack.conf");
	ck_assert_int_eq(bnd_siteconf_plugstack_path("/etc/slurm/slurm.conf", "", out, 8, err,
						     sizeof(err)), BND_EINVAL);
}
END_TEST

static int includes;
static void count_include(void *ctx, const char *pattern)
{
	(void)ctx;
	includes += !strcmp(pattern, "/etc/slurm/plugstack.conf.d/*.conf");
}

START_TEST(scan_plugstack)
{
	struct bnd_config c;
	int found = 0;
	bnd_config_defaults(&c);
	bnd_siteconf_scan_plugstack("optional /usr/lib/x/other.so submit=off\n"
				    "include /etc/slurm/plugstack.conf.d/*.conf\n"
				    "# required spank_binding.so submit=off\n"
				    "required  /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_binding.so "
				    "state_dir=/run/b submit=refuse   # the filter only refuses\n",
				    &c, &found, count_include, NULL);
	ck_assert_int_eq(found, 1);
	ck_assert_int_eq(includes, 1);
	ck_assert_int_eq(c.submit, BND_SUBMIT_REFUSE);
	ck_assert_str_eq(c.state_dir, "/run/b");
	found = 0;
	bnd_siteconf_scan_plugstack("optional spank_binding.so.old submit=off\n", &c, &found, NULL,
				    NULL);
	ck_assert_int_eq(found, 0);
	/* a bad value keeps the default, as in the plugin */
	bnd_siteconf_scan_plugstack("optional spank_binding.so submit=maybe\n", &c, &found, NULL,
				    NULL);
	ck_assert_int_eq(found, 1);
	ck_assert_int_eq(c.submit, BND_SUBMIT_TRANSLATE);
}
END_TEST

START_TEST(modes_from_files)
{
	char why[BND_ERRLEN];
	/* no slurm.conf: the default */
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_TRANSLATE);
	ck_assert_ptr_nonnull(strstr(why, "unreadable"));
	/* slurm.conf without the plugin anywhere: off */
	put("slurm.conf", "ClusterName=t\n");
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_OFF);
	ck_assert_ptr_nonnull(strstr(why, "lists no spank_binding.so"));
	put("plugstack.conf", "required /x/spank_binding.so\n");
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_TRANSLATE);
	put("plugstack.conf", "required /x/spank_binding.so submit=off\n");
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_OFF);
	put("plugstack.conf", "required /x/spank_binding.so enabled=no submit=refuse\n");
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_OFF);
	ck_assert_ptr_nonnull(strstr(why, "enabled=no"));
	/* PlugStackConfig elsewhere, and through an include */
	char text[512];
	snprintf(text, sizeof(text), "PlugStackConfig=%s/other.conf\n", dir);
	put("slurm.conf", text);
	snprintf(text, sizeof(text), "include %s/stack.d/*.conf\n", dir);
	put("other.conf", text);
	snprintf(text, sizeof(text), "%s/stack.d", dir);
	ck_assert_int_eq(mkdir(text, 0755), 0);
	put("stack.d/b.conf", "optional /x/spank_binding.so submit=refuse\n");
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_REFUSE);
	ck_assert_ptr_nonnull(strstr(why, "submit=refuse"));
	/* $SLURM_CONF when no path is given */
	snprintf(text, sizeof(text), "%s/slurm.conf", dir);
	setenv("SLURM_CONF", text, 1);
	enum bnd_submit_mode m = BND_SUBMIT_TRANSLATE;
	bnd_siteconf_submit_mode(NULL, &m, why, sizeof(why));
	ck_assert_int_eq(m, BND_SUBMIT_REFUSE);
	unsetenv("SLURM_CONF");
}
END_TEST

/* An include that names itself stops at the depth limit. */
START_TEST(include_loop)
{
	char text[512], why[BND_ERRLEN];
	put("slurm.conf", "ClusterName=t\n");
	snprintf(text, sizeof(text), "include %s/plugstack.conf\n", dir);
	put("plugstack.conf", text);
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_OFF);
}
END_TEST

/* slurm.conf's Include (issue 32 item 8): a PlugStackConfig set in an
 * included file is the one slurmd uses, so the filter reads it too (it
 * read the default plugstack.conf beside slurm.conf, and the wrong mode).
 * Relative names are taken from slurm.conf's directory, %c is the
 * cluster's name, the last PlugStackConfig read wins, and a file that
 * includes itself stops at the depth limit. submit_error= comes with it. */
START_TEST(slurm_conf_include)
{
	char text[1024], why[BND_ERRLEN], sub[300];
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	put("plugstack.conf", "required /x/spank_binding.so submit=off\n");
	put("other.conf", "required /x/spank_binding.so submit=refuse submit_error=refuse\n");
	snprintf(text, sizeof(text), "PlugStackConfig=%s/other.conf\n", dir);
	put("conf.d/c7.conf", text);
	put("slurm.conf", "ClusterName=c7\nSlurmUser=slurm\n  Include conf.d/%c.conf\n");
	struct bnd_submit_site site;
	snprintf(text, sizeof(text), "%s/slurm.conf", dir);
	bnd_siteconf_submit(text, &site);
	ck_assert_int_eq(site.mode, BND_SUBMIT_REFUSE);
	ck_assert_int_eq(site.on_error, BND_SUBMIT_ERROR_REFUSE);
	ck_assert_msg(strstr(site.why, "other.conf"), "%s", site.why);
	/* an absolute include, lower case; a later line of slurm.conf wins */
	snprintf(text, sizeof(text), "include %s/conf.d/c7.conf\nPlugStackConfig=%s/plugstack.conf\n",
		 dir, dir);
	put("slurm.conf", text);
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_OFF);
	/* a missing include changes nothing; "Includes=" is no include */
	put("slurm.conf", "Include conf.d/none.conf\nIncludes=x\n");
	ck_assert_int_eq(mode_of(why, sizeof(why)), BND_SUBMIT_OFF);
	ck_assert_msg(strstr(why, "/plugstack.conf"), "%s", why);
	/* slurm.conf including itself: read up to the depth limit, no hang */
	put("other.conf", "required /x/spank_binding.so\n");
	snprintf(text, sizeof(text), "Include slurm.conf\nPlugStackConfig=%s/other.conf\n", dir);
	put("slurm.conf", text);
	snprintf(text, sizeof(text), "%s/slurm.conf", dir);
	bnd_siteconf_submit(text, &site);
	ck_assert_int_eq(site.mode, BND_SUBMIT_TRANSLATE);
	ck_assert_int_eq(site.on_error, BND_SUBMIT_ERROR_CONTINUE);
	char out[256], err[BND_ERRLEN];
	ck_assert_int_eq(bnd_siteconf_plugstack_path("/slurm.conf", "", out, sizeof(out), err,
						     sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "/plugstack.conf");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("siteconf");
	TCase *tc = tcase_create("siteconf");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plugstack_path);
	tcase_add_test(tc, scan_plugstack);
	tcase_add_test(tc, modes_from_files);
	tcase_add_test(tc, include_loop);
	tcase_add_test(tc, slurm_conf_include);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
