/* The site's switch for the cli_filter (plugstack.conf submit=, config.h),
 * read where the filter runs: on the submit host, from the plugin's own
 * line in the plugstack.conf that slurm.conf names (PlugStackConfig=, by
 * default plugstack.conf beside slurm.conf), so it is configured where the
 * plugin is. enabled=no turns the filter off too.
 */
#ifndef BINDING_SUBMIT_SITECONF_H
#define BINDING_SUBMIT_SITECONF_H

#include <stddef.h>

#include "binding/request/config.h"
#include "binding/submit/numamem.h"
#include "binding/util/error.h"

/* The plugstack.conf path slurm.conf's text names (the last
 * PlugStackConfig=, its Include files read inline where they stand:
 * relative to slurm_conf_path's directory, %c the ClusterName), or the
 * default beside slurm_conf_path. BND_EINVAL when it does not fit out. */
int bnd_siteconf_plugstack_path(const char *slurm_conf_path, const char *text, char *out,
				size_t outlen, char *err, size_t errlen);

/* Scans one plugstack.conf text for the plugin's line (a required or
 * optional line whose plugin is spank_binding.so) and parses its
 * arguments into cfg; *found is set when there is one. include lines are
 * handed to include(ctx, pattern) in order. Bad arguments keep their
 * defaults, as in the plugin. cfg starts from bnd_config_defaults (or
 * an earlier scan); the caller frees it (bnd_config_clear). */
int bnd_siteconf_scan_plugstack(const char *text, struct bnd_config *cfg, int *found,
				void (*include)(void *ctx, const char *pattern), void *ctx);

/* The site's settings for the cli_filter on this host. */
struct bnd_submit_site {
	enum bnd_submit_mode mode;       /* submit= (off: enabled=no, no plugin) */
	enum bnd_submit_error on_error;  /* submit_error= */
	/* numamem=, and when it is yes the numamem types of slurm.conf's
	 * node lines (submit/numamem.h) */
	struct bnd_numamem_site numamem;
	char why[4608];                  /* where mode came from */
};

/* slurm_conf (NULL: $SLURM_CONF, else /etc/slurm/slurm.conf) ->
 * plugstack.conf -> the plugin's submit=, submit_error=, enabled= and
 * numamem= (with numamem=yes, slurm.conf's node lines too). slurm.conf's
 * Include lines are followed as slurmd follows them. When the files
 * cannot be read the defaults hold (translate, continue, numamem=no);
 * without the plugin's line the filter has nothing to do (off). */
void bnd_siteconf_submit(const char *slurm_conf, struct bnd_submit_site *site);

/* The site's mode for this host: slurm_conf (NULL: $SLURM_CONF, else
 * /etc/slurm/slurm.conf) -> plugstack.conf -> the plugin's submit= and
 * enabled=. When the files cannot be read the default (translate) holds;
 * without the plugin's line the filter has nothing to do (off). why says
 * where the mode came from. */
void bnd_siteconf_submit_mode(const char *slurm_conf, enum bnd_submit_mode *mode, char *why,
			      size_t whylen);

/* The plugin's own line of the plugstack.conf that slurm_conf names (NULL:
 * $SLURM_CONF, else /etc/slurm/slurm.conf) into cfg (the defaults when
 * there is none): 1 when there is one, 0 otherwise; why says where it was
 * read or why not. For tools that run on a node (sbind gres-conf's
 * mem_reserve=). The caller frees cfg with bnd_config_clear. */
int bnd_siteconf_config(const char *slurm_conf, struct bnd_config *cfg, char *why, size_t whylen);

#endif
