/* plugstack.conf arguments: every setting, defaults, and bad words that
 * must be reported while the plugin keeps safe defaults. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "binding/request/config.h"
#include "binding/util/error.h"
#include "testutil.h"

/* Room for every complaint of a long bad config line. */
#define ERRLEN 4096

static int parse(struct bnd_config *c, char *err, int argc, char **argv)
{
	bnd_config_defaults(c);
	return bnd_config_parse(c, argc, argv, err, ERRLEN);
}

START_TEST(defaults)
{
	struct bnd_config c;
	char err[ERRLEN] = "x";
	ck_assert_int_eq(parse(&c, err, 0, NULL), BND_OK);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(c.state_dir, "/run/slurm-binding");
	ck_assert_int_eq(c.enabled, 1);
	ck_assert_str_eq(c.default_spec, "");
	ck_assert_int_eq(c.on_failure, BND_ONFAIL_DEFER);
	ck_assert_int_eq(c.lock_timeout_ms, 10000);
	ck_assert_int_eq(c.verbose, 0);
	ck_assert_int_eq(c.filter, BND_FILTER_NONE);
	ck_assert_int_eq(c.implicit, 0);
	ck_assert_str_eq(c.default_unit, "C");
	ck_assert_int_eq(c.defer_max, BND_DEFAULT_DEFER_MAX);
	ck_assert_int_eq(c.on_any_host, 1);
	ck_assert_str_eq(c.topology, "");
}
END_TEST

START_TEST(every_setting)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *argv[] = { "state_dir=/tmp/x/state", "enabled=no", "default=linear:1",
			 "on_failure=fail", "lock_timeout=2.5", "verbose", "filter=first_core",
			 "default_unit=CT", "mem_reserve=2G", "defer_max=8", "private_files=yes",
			 "on_any_host=no", "topology=/etc/slurm/node.xml", "submit=refuse",
			 "metrics_file=/var/lib/prometheus/node-exporter/spank_binding.prom",
			 "numamem=yes" };
	ck_assert_int_eq(parse(&c, err, 16, argv), BND_OK);
	ck_assert_str_eq(c.metrics_file, "/var/lib/prometheus/node-exporter/spank_binding.prom");
	ck_assert_int_eq(c.numamem, 1);
	ck_assert_int_eq(c.on_any_host, 0);
	ck_assert_str_eq(c.topology, "/etc/slurm/node.xml");
	ck_assert_int_eq(c.defer_max, 8);
	ck_assert_int_eq(c.private_files, 1);
	ck_assert_int_eq(c.submit, BND_SUBMIT_REFUSE);
	ck_assert(c.mem_reserve.mib == 2048 && c.mem_reserve.percent == 0);
	ck_assert_str_eq(c.state_dir, "/tmp/x/state");
	ck_assert_int_eq(c.enabled, 0);
	ck_assert_str_eq(c.default_spec, "linear:1");
	ck_assert_int_eq(c.on_failure, BND_ONFAIL_FAIL);
	ck_assert_int_eq(c.lock_timeout_ms, 2500);
	ck_assert_int_eq(c.verbose, 1);
	ck_assert_int_eq(c.filter, BND_FILTER_FIRST_CORE);
	ck_assert_str_eq(c.default_unit, "CT");

	char line[512];
	ck_assert_int_eq(bnd_config_describe(&c, line, sizeof(line)), BND_OK);
	ck_assert_str_eq(line, "state_dir=/tmp/x/state enabled=no default=linear:1 "
			 "on_failure=fail lock_timeout=2.500 verbose=yes filter=first_core "
			 "implicit=no default_unit=CT mem_reserve=2048M defer_max=8 gpu_devices=none "
			 "gres_conf=default private_files=yes on_any_host=no "
			 "topology=/etc/slurm/node.xml "
			 "metrics_file=/var/lib/prometheus/node-exporter/spank_binding.prom submit=refuse "
			 "submit_error=continue numamem=yes");
	bnd_config_clear(&c);
}
END_TEST

/* The GPU settings: device files mapped to bus ids (several words add up),
 * gres.conf's path; a bad word keeps the others. */
START_TEST(gpu_settings)
{
	struct bnd_config c;
	char err[ERRLEN], line[1024];
	char *ok[] = { "gpu_devices=/dev/fakegpu0=00:05.0,/dev/fakegpu1=0000:00:06.0",
		       "gpu_devices=/dev/fakegpu2=0000:00:07.0", "gres_conf=/etc/slurm/gres.conf" };
	ck_assert_int_eq(parse(&c, err, 3, ok), BND_OK);
	ck_assert_int_eq(c.gpu_devices.n, 3);
	ck_assert_str_eq(c.gpu_devices.e[2].busid, "0000:00:07.0");
	ck_assert_str_eq(c.gres_conf, "/etc/slurm/gres.conf");
	ck_assert_int_eq(bnd_config_describe(&c, line, sizeof(line)), BND_OK);
	ck_assert_msg(strstr(line, " gpu_devices=/dev/fakegpu0=0000:00:05.0,/dev/fakegpu1=0000:00:06.0,"
			     "/dev/fakegpu2=0000:00:07.0 gres_conf=/etc/slurm/gres.conf"), "%s", line);
	char *bad[] = { "gpu_devices=/dev/a=00:05.0,fake=00:06.0", "gres_conf=gres.conf",
			"gpu_devices=" };
	ck_assert_int_eq(parse(&c, err, 3, bad), BND_EINVAL);
	ck_assert_msg(strstr(err, "gpu_devices: \"fake=00:06.0\" is not /dev/PATH=BUSID") &&
		      strstr(err, "gres_conf must be an absolute path") &&
		      strstr(err, "\"gpu_devices=\": a value is required"), "%s", err);
	ck_assert_int_eq(c.gpu_devices.n, 0);
	ck_assert_str_eq(c.gres_conf, "");
}
END_TEST

START_TEST(private_files_setting)
{
	struct bnd_config c;
	char err[ERRLEN];
	bnd_config_defaults(&c);
	ck_assert_int_eq(c.private_files, 0);
	char *no[] = { "private_files=no" };
	ck_assert_int_eq(parse(&c, err, 1, no), BND_OK);
	ck_assert_int_eq(c.private_files, 0);
	char *bad[] = { "private_files=maybe", "private_files" };
	ck_assert_int_eq(parse(&c, err, 2, bad), BND_EINVAL);
	ck_assert_msg(strstr(err, "\"private_files=maybe\": expected private_files=yes|no") &&
		      strstr(err, "\"private_files\": a value is required"), "%s", err);
	ck_assert_int_eq(c.private_files, 0);
	char *unknown[] = { "privat_files=yes" };
	ck_assert_int_eq(parse(&c, err, 1, unknown), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "private_files="));
}
END_TEST

START_TEST(mem_reserve_setting)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *pct[] = { "mem_reserve=5%" };
	ck_assert_int_eq(parse(&c, err, 1, pct), BND_OK);
	ck_assert_int_eq(c.mem_reserve.percent, 5);
	char *bad[] = { "mem_reserve=lots", "mem_reserve=150%" };
	ck_assert_int_eq(parse(&c, err, 2, bad), BND_EINVAL);
	ck_assert_msg(strstr(err, "\"mem_reserve=lots\"") && strstr(err, "\"mem_reserve=150%\""),
		      "%s", err);
	/* a bad word keeps the default: no reserve */
	ck_assert(c.mem_reserve.mib == 0 && c.mem_reserve.percent == 0);
}
END_TEST

START_TEST(implicit_binding_settings)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *argv[] = { "implicit=yes", "default_unit=T" };
	ck_assert_int_eq(parse(&c, err, 2, argv), BND_OK);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(c.implicit, 1);
	ck_assert_str_eq(c.default_unit, "T");
	/* every packed unit is accepted, nothing else */
	const char *units[] = { "T", "CT", "ET", "C", "E", "S", "CS", "ES", "X", "CX", "EX",
				"Y", "CY", "EY", "N", "CN", "EN" };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		char word[32];
		snprintf(word, sizeof(word), "default_unit=%s", units[i]);
		char *one[] = { word };
		ck_assert_msg(parse(&c, err, 1, one) == BND_OK, "%s: %s", word, err);
		ck_assert_str_eq(c.default_unit, units[i]);
	}
	char *bad[] = { "default_unit=Q", "default_unit=c", "default_unit=CC",
			"default_unit=CTT", "implicit=sometimes", "filter=last_core",
			"filter=NSXCC", "default_unit=" };
	ck_assert_int_eq(parse(&c, err, 8, bad), BND_EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char quoted[64];
		snprintf(quoted, sizeof(quoted), "\"%s\"", bad[i]);
		ck_assert_msg(strstr(err, quoted), "%s missing from: %s", quoted, err);
	}
	ck_assert_str_eq(c.default_unit, "C");
	ck_assert_int_eq(c.implicit, 0);
	ck_assert_int_eq(c.filter, BND_FILTER_NONE);
	/* later words win; none switches the filter off again */
	char *flip[] = { "filter=first_core", "filter=none", "implicit=yes", "implicit=no" };
	ck_assert_int_eq(parse(&c, err, 4, flip), BND_OK);
	ck_assert_int_eq(c.filter, BND_FILTER_NONE);
	ck_assert_int_eq(c.implicit, 0);
}
END_TEST

/* A site should set one of the two; when both are there, default= (the
 * binding the admin wrote out) wins and the conflict is reported. */
START_TEST(default_wins_over_implicit)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *argv[] = { "implicit=yes", "default=linear:2", "default_unit=T" };
	ck_assert_int_eq(parse(&c, err, 3, argv), BND_EINVAL);
	ck_assert_msg(strstr(err, "default=linear:2 and implicit=yes both given") &&
		      strstr(err, "implicit= is ignored"), "%s", err);
	ck_assert_str_eq(c.default_spec, "linear:2");
	ck_assert_int_eq(c.implicit, 0);
	ck_assert_str_eq(c.default_unit, "T");
	bnd_config_clear(&c);
	/* default=none is no default: implicit stands */
	char *none[] = { "implicit=yes", "default=none" };
	ck_assert_int_eq(parse(&c, err, 2, none), BND_OK);
	ck_assert_int_eq(c.implicit, 1);
	ck_assert_str_eq(c.default_spec, "");
}
END_TEST

START_TEST(later_words_win_and_spellings)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *argv[] = { "enabled=no", "enabled=yes", "verbose=yes", "verbose=no",
			 "default=env:striding:2:2", "default=none", "on_failure=fail",
			 "on_failure=unbound", "lock_timeout=1" };
	ck_assert_int_eq(parse(&c, err, 9, argv), BND_OK);
	ck_assert_int_eq(c.enabled, 1);
	ck_assert_int_eq(c.verbose, 0);
	ck_assert_str_eq(c.default_spec, "");
	ck_assert_int_eq(c.on_failure, BND_ONFAIL_UNBOUND);
	ck_assert_int_eq(c.lock_timeout_ms, 1000);
	char *argv2[] = { "on_failure=unbound", "on_failure=defer" };
	ck_assert_int_eq(parse(&c, err, 2, argv2), BND_OK);
	ck_assert_int_eq(c.on_failure, BND_ONFAIL_DEFER);
	char *argv3[] = { "on_failure=defer", "on_failure=unbound" };
	ck_assert_int_eq(parse(&c, err, 2, argv3), BND_OK);
	ck_assert_int_eq(c.on_failure, BND_ONFAIL_UNBOUND);
}
END_TEST

START_TEST(bad_words_keep_defaults_and_are_all_named)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *argv[] = { "colour=blue", "enabled=maybe", "state_dir=relative/dir",
			 "default=linear:0", "on_failure=explode", "lock_timeout=-1",
			 "lock_timeout=abc", "verbose=loud", "state_dir=", "on_failure=fail",
			 "on_any_host=sometimes", "topology=node.xml" };
	ck_assert_int_eq(parse(&c, err, 12, argv), BND_EINVAL);
	/* every bad word is in the message, the good one applied */
	const char *bad[] = { "\"colour=blue\"", "\"enabled=maybe\"", "\"state_dir=relative/dir\"",
			      "\"default=linear:0\"", "\"on_failure=explode\"", "\"lock_timeout=-1\"",
			      "\"lock_timeout=abc\"", "\"verbose=loud\"", "\"state_dir=\"",
			      "\"on_any_host=sometimes\"", "\"topology=node.xml\"" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(strstr(err, bad[i]), "%s missing from: %s", bad[i], err);
	ck_assert_msg(strstr(err, "unknown argument"), "%s", err);
	ck_assert_msg(strstr(err, "amount"), "the request parser's reason is kept: %s", err);
	ck_assert_str_eq(c.state_dir, "/run/slurm-binding");
	ck_assert_int_eq(c.enabled, 1);
	ck_assert_str_eq(c.default_spec, "");
	ck_assert_int_eq(c.on_failure, BND_ONFAIL_FAIL);
	ck_assert_int_eq(c.lock_timeout_ms, 10000);
	ck_assert_int_eq(c.verbose, 0);
	ck_assert_int_eq(c.on_any_host, 1);
	ck_assert_str_eq(c.topology, "");
}
END_TEST

START_TEST(timeout_bounds)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *ok[] = { "lock_timeout=0.001" };
	ck_assert_int_eq(parse(&c, err, 1, ok), BND_OK);
	ck_assert_int_eq(c.lock_timeout_ms, 1);
	char *big[] = { "lock_timeout=3601" };
	ck_assert_int_eq(parse(&c, err, 1, big), BND_EINVAL);
	ck_assert_int_eq(c.lock_timeout_ms, 10000);
	char *zero[] = { "lock_timeout=0" };
	ck_assert_int_eq(parse(&c, err, 1, zero), BND_EINVAL);
	char *junk[] = { "lock_timeout=5s" };
	ck_assert_int_eq(parse(&c, err, 1, junk), BND_EINVAL);
	char *inf[] = { "lock_timeout=inf" };
	ck_assert_int_eq(parse(&c, err, 1, inf), BND_EINVAL);
	ck_assert_int_eq(c.lock_timeout_ms, 10000);
}
END_TEST

START_TEST(long_message_is_truncated_safely)
{
	struct bnd_config c;
	char err[40];
	char *argv[] = { "aaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "cc" };
	bnd_config_defaults(&c);
	ck_assert_int_eq(bnd_config_parse(&c, 3, argv, err, sizeof(err)), BND_EINVAL);
	ck_assert_uint_lt(strlen(err), sizeof(err));
	ck_assert(!strncmp(err, "unknown argument \"aaaa", 21));
}
END_TEST

/* plugstack.conf.example documents every argument, and its plugin lines
 * (active or commented examples) parse without a complaint. */
START_TEST(example_file_parses_and_documents_everything)
{
	FILE *f = fopen("plugstack.conf.example", "r");
	if (!f) {
		printf("# SKIP plugstack.conf.example not found (run from the checkout)\n");
		return;
	}
	char line[2048], all[65536] = "";
	int plugin_lines = 0;
	while (fgets(line, sizeof(line), f)) {
		strncat(all, line, sizeof(all) - strlen(all) - 1);
		char *p = line + strspn(line, "# \t");
		if (strncmp(p, "required ", 9) && strncmp(p, "optional ", 9))
			continue;
		char *argv[32];
		int argc = 0;
		strtok(p, " \t\n"); /* required */
		char *so = strtok(NULL, " \t\n");
		size_t n = so ? strlen(so) : 0;
		if (n < 3 || strcmp(so + n - 3, ".so"))
			continue; /* prose that starts with the word */
		for (char *w; argc < 32 && (w = strtok(NULL, " \t\n"));)
			argv[argc++] = w;
		struct bnd_config c;
		char err[ERRLEN];
		ck_assert_msg(parse(&c, err, argc, argv) == BND_OK, "example line: %s", err);
		bnd_config_clear(&c);
		plugin_lines++;
	}
	fclose(f);
	ck_assert_int_ge(plugin_lines, 2);
	const char *keys[] = { "state_dir=", "enabled=yes|no", "default=SPEC",
			       "on_failure=defer|unbound|fail", "lock_timeout=SECONDS", "verbose",
			       "filter=first_core", "implicit=yes|no", "default_unit=",
			       "gpu_devices=/dev/PATH=BUSID", "gres_conf=", "on_any_host=yes|no",
			       "topology=", "submit=translate|refuse|off",
			       "submit_error=continue|refuse", "numamem=yes|no" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(strstr(all, keys[i]), "%s is not documented", keys[i]);
}
END_TEST

/* The settings line of the defaults, as slurmd logs it. */
START_TEST(defaults_line)
{
	struct bnd_config c;
	char line[1024];
	bnd_config_defaults(&c);
	ck_assert_int_eq(bnd_config_describe(&c, line, sizeof(line)), BND_OK);
	ck_assert_str_eq(line, "state_dir=/run/slurm-binding enabled=yes default=none "
			 "on_failure=defer lock_timeout=10.000 verbose=no filter=none implicit=no "
			 "default_unit=C mem_reserve=0M defer_max=64 gpu_devices=none "
			 "gres_conf=default private_files=no on_any_host=yes topology=discovery "
			 "metrics_file=none submit=translate submit_error=continue numamem=no");
}
END_TEST

/* sbind submit --mode reads submit='s words by the same row: each one
 * back to its name, anything else refused with the accepted form. */
START_TEST(submit_mode_words_are_the_keys)
{
	const char *words[] = { "translate", "refuse", "off" };
	enum bnd_submit_mode m = BND_SUBMIT_OFF;
	char err[ERRLEN] = "";
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(bnd_submit_mode_parse(words[i], &m, err, sizeof(err)), BND_OK);
		ck_assert_str_eq(bnd_submit_mode_name(m), words[i]);
	}
	ck_assert_int_eq(bnd_submit_mode_parse("maybe", &m, err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "expected submit=translate|refuse|off");
	ck_assert_str_eq(bnd_submit_mode_name(m), "off");
	ck_assert_int_eq(bnd_submit_mode_parse(NULL, &m, err, sizeof(err)), BND_EINVAL);
	/* submit_error=: continue by default, refuse on request, a bad word kept out */
	struct bnd_config c;
	bnd_config_defaults(&c);
	ck_assert_int_eq(c.submit_error, BND_SUBMIT_ERROR_CONTINUE);
	char *argv[] = { "submit_error=refuse" };
	ck_assert_int_eq(parse(&c, err, 1, argv), BND_OK);
	ck_assert_int_eq(c.submit_error, BND_SUBMIT_ERROR_REFUSE);
	ck_assert_str_eq(bnd_submit_error_name(c.submit_error), "refuse");
	char *bad[] = { "submit_error=maybe" };
	ck_assert_int_eq(parse(&c, err, 1, bad), BND_EINVAL);
	ck_assert_str_eq(err, "\"submit_error=maybe\": expected submit_error=continue|refuse");
}
END_TEST

/* Each key's default, as the table writes it, is either its value
 * written out (parsing it changes nothing) or the word the settings line
 * shows for "not set"; usage names the key, every key has help, and the
 * settings line names the keys in the table's order. */
START_TEST(table_defaults_are_the_defaults)
{
	struct bnd_config d, c;
	char err[ERRLEN], line0[1024], line[1100];
	struct bnd_config_key_info k;
	bnd_config_defaults(&d);
	ck_assert_int_eq(bnd_config_describe(&d, line0, sizeof(line0)), BND_OK);
	const char *at = line0;
	size_t i;
	for (i = 0; bnd_config_key_info(i, &k) == BND_OK; i++) {
		char word[256], shown[300];
		ck_assert(k.name && k.def && k.help && *k.help);
		ck_assert_msg(!strncmp(k.usage, k.name, strlen(k.name)), "%s", k.usage);
		snprintf(word, sizeof(word), "%s=%s", k.name, k.def);
		char *argv[] = { word };
		if (parse(&c, err, 1, argv) == BND_OK) {
			ck_assert_int_eq(bnd_config_describe(&c, line, sizeof(line)), BND_OK);
			ck_assert_msg(!strcmp(line, line0), "%s changes the defaults: %s", word, line);
		} else {
			snprintf(shown, sizeof(shown), " %s ", word);
			snprintf(line, sizeof(line), " %s ", line0);
			ck_assert_msg(strstr(line, shown), "%s neither parses (%s) nor is shown", word,
				      err);
		}
		snprintf(word, sizeof(word), "%s=", k.name);
		ck_assert_msg((at = strstr(at, word)), "%s out of order in %s", word, line0);
	}
	ck_assert_int_eq(i, 20);
	ck_assert_int_eq(bnd_config_key_info(i, &k), BND_EINVAL);
}
END_TEST

/* default= is parsed once, into default_req; none and a later word reset it. */
START_TEST(default_request_is_parsed_once)
{
	struct bnd_config c;
	char err[ERRLEN];
	bnd_config_defaults(&c);
	ck_assert_ptr_null(c.default_req);
	char *argv[] = { "default=pe:striding:2:2" };
	ck_assert_int_eq(parse(&c, err, 1, argv), BND_OK);
	ck_assert_ptr_nonnull(c.default_req);
	ck_assert_int_eq(c.default_req->strategy, BND_S_STRIDING);
	ck_assert_int_eq(c.default_req->instance, BND_I_PE);
	ck_assert_int_eq(c.default_req->amount, 2);
	ck_assert_int_eq(c.default_req->step, 2);
	ck_assert_str_eq(c.default_req->text, "pe:striding:2:2");
	bnd_config_clear(&c);
	ck_assert_ptr_null(c.default_req);
	char *bad[] = { "default=linear:3", "default=linear:0" };
	ck_assert_int_eq(parse(&c, err, 2, bad), BND_EINVAL);
	ck_assert_int_eq(c.default_req->strategy, BND_S_LINEAR);
	ck_assert_int_eq(c.default_req->amount, 3);
	ck_assert_str_eq(c.default_spec, "linear:3");
	bnd_config_clear(&c);
	char *none[] = { "default=linear:3", "default=none" };
	ck_assert_int_eq(parse(&c, err, 2, none), BND_OK);
	ck_assert_ptr_null(c.default_req);
	ck_assert_str_eq(c.default_spec, "");
	/* a list the request allocated goes with it */
	char *listed[] = { "default=explicit:0,0:1,0" };
	ck_assert_int_eq(parse(&c, err, 1, listed), BND_OK);
	ck_assert_int_eq(c.default_req->nexplicit, 2);
	ck_assert_int_eq(c.default_req->explicit_pairs[1].socket, 1);
	bnd_config_clear(&c);
}
END_TEST

/* Each complaint names the bad word and the accepted form. */
START_TEST(complaints_name_the_form)
{
	struct bnd_config c;
	char err[ERRLEN];
	char *argv[] = { "on_failure=retry", "filter=all", "defer_max=-1", "lock_timeout=x",
			 "topology=x.xml", "verbose=loud", "default_unit=Q" };
	ck_assert_int_eq(parse(&c, err, 7, argv), BND_EINVAL);
	const char *want[] = {
		"\"on_failure=retry\": expected on_failure=defer|unbound|fail",
		"\"filter=all\": expected filter=first_core|none",
		"\"defer_max=-1\": expected defer_max=<steps> (0 to 100000)",
		"\"lock_timeout=x\": expected lock_timeout=<seconds> (0 < seconds <= 3600)",
		"\"topology=x.xml\": topology must be an absolute path shorter than 256 characters "
		"(expected topology=/<path>.xml)",
		"\"verbose=loud\": expected verbose or verbose=yes|no",
		"\"default_unit=Q\": expected default_unit=T|CT|ET|C|E|S|CS|ES|X|CX|EX|Y|CY|EY|N|CN|EN",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(err, want[i]), "%s missing from: %s", want[i], err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, every_setting);
	tcase_add_test(tc, private_files_setting);
	tcase_add_test(tc, later_words_win_and_spellings);
	tcase_add_test(tc, implicit_binding_settings);
	tcase_add_test(tc, mem_reserve_setting);
	tcase_add_test(tc, gpu_settings);
	tcase_add_test(tc, default_wins_over_implicit);
	tcase_add_test(tc, bad_words_keep_defaults_and_are_all_named);
	tcase_add_test(tc, timeout_bounds);
	tcase_add_test(tc, long_message_is_truncated_safely);
	tcase_add_test(tc, example_file_parses_and_documents_everything);
	tcase_add_test(tc, defaults_line);
	tcase_add_test(tc, table_defaults_are_the_defaults);
	tcase_add_test(tc, submit_mode_words_are_the_keys);
	tcase_add_test(tc, default_request_is_parsed_once);
	tcase_add_test(tc, complaints_name_the_form);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
