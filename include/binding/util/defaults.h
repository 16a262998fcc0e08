/* The site-wide defaults that several layers (config, state, sbind) fall
 * back to: one constant each, so they cannot drift apart. */
#ifndef BINDING_DEFAULTS_H
#define BINDING_DEFAULTS_H

/* Root-owned, on tmpfs: records describe processes of this boot only. */
#define BND_DEFAULT_STATE_DIR "/run/slurm-binding"
/* How long a writer waits for the state lock before giving up, in
 * seconds as plugstack.conf's lock_timeout= writes it. */
#define BND_DEFAULT_LOCK_TIMEOUT_S 10
#define BND_DEFAULT_LOCK_TIMEOUT_MS (BND_DEFAULT_LOCK_TIMEOUT_S * 1000)

#endif
