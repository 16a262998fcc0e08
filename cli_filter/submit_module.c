/* spank_binding_submit.so: the submit translation (lib/submit) as a Lua 5.1
 * module, for the cli_filter.lua to call inside srun, sbatch and salloc
 * instead of running `sbind submit` (two execs per submission: sh and
 * sbind). Same library code, same answers: tests/cli/t_submit.sh compares
 * the two.
 *
 *   local m = package.loadlib(path, "luaopen_spank_binding_submit")()
 *   local r = m.translate("srun", slurm.json_cli_options(options))
 *   -- r.binding, r.mbind (as given, "none" when not), r.untouched = true
 *   -- when neither asks anything; r.request, r.options,
 *   -- r.sets = { { name=, value=, why= }, ... }, r.notes = { ... },
 *   -- r.refused = reason or nil, r.error = reason or nil
 *   local site = m.site()  -- { mode=, on_error=, why= }: submit=, submit_error=
 *
 * It never raises a Lua error into Slurm's filter: bad input comes back as
 * r.error. Slurm's cli_filter/lua opens liblua with RTLD_GLOBAL, and the
 * module links liblua5.1 too, so either way its lua_* symbols are the
 * filter's own.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "binding/request/request.h"
#include "binding/submit/allocopt.h"
#include "binding/submit/clijson.h"
#include "binding/submit/siteconf.h"
#include "binding/submit/submission.h"
#include "binding/submit/translate.h"
#include "binding/util/error.h"

int luaopen_spank_binding_submit(lua_State *L);

static void set_string(lua_State *L, const char *key, const char *value)
{
	lua_pushstring(L, value);
	lua_setfield(L, -2, key);
}

/* The options added, as the table the filter sets from. */
static void push_sets(lua_State *L, const struct bnd_submit *s)
{
	lua_newtable(L);
	for (int i = 0; i < s->nset; i++) {
		lua_newtable(L);
		set_string(L, "name", s->set[i].name);
		set_string(L, "value", s->set[i].value);
		set_string(L, "why", s->set[i].why);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "sets");
	lua_newtable(L);
	for (int i = 0; i < s->nnotes; i++) {
		lua_pushstring(L, s->notes[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "notes");
}

/* Everything but the answer's table: Slurm's JSON read (clijson.h), the
 * site's mode, the translation. BND_OK or BND_ENOFIT fill s; others fill
 * err. *asked: whether the JSON asks anything (else nothing is done). */
static int run(lua_State *L, struct bnd_cli_request *req, bool *asked, struct bnd_request *r,
	       struct bnd_submit *s, char *err, size_t errlen)
{
	struct bnd_alloc a;
	enum bnd_submit_cmd cmd = BND_CMD_SRUN;
	enum bnd_mbind m = BND_M_NONE;
	struct bnd_submit_site site;
	const char *c = luaL_optstring(L, 1, "srun"), *json = luaL_optstring(L, 2, "");
	*asked = false;
	if (bnd_submit_cmd_parse(c, &cmd, err, errlen) != BND_OK)
		return BND_EINVAL;
	bnd_alloc_init(&a, cmd);
	if (bnd_cli_json_read(json, req, &a, err, errlen) != BND_OK)
		return BND_EINVAL;
	if (!(*asked = bnd_cli_request_binds(req)))
		return BND_OK;
	if (bnd_request_parse(r, req->binding[0] ? req->binding : "none", err, errlen) != BND_OK ||
	    (req->mbind[0] && bnd_mbind_parse(&m, req->mbind, err, errlen) != BND_OK))
		return BND_EINVAL;
	bnd_siteconf_submit(NULL, &site);
	return bnd_submit_at_site(r, m, &a, &site, s, err, errlen);
}

/* translate(command, json) -> table */
static int l_translate(lua_State *L)
{
	struct bnd_cli_request req = { "", "" };
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_submit *s = calloc(1, sizeof(*s));
	char err[BND_ERRLEN] = "", opts[BND_SUBMIT_TEXT] = "";
	bool asked = false;
	int rc = r && s ? run(L, &req, &asked, r, s, err, sizeof(err))
			: bnd_fail(err, sizeof(err), BND_ENOMEM, "out of memory");
	lua_newtable(L);
	set_string(L, "binding", req.binding[0] ? req.binding : "none");
	set_string(L, "mbind", req.mbind[0] ? req.mbind : "none");
	if (rc == BND_OK && !asked) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "untouched");
	} else if (rc == BND_OK || rc == BND_ENOFIT) {
		set_string(L, "request", s->what);
	}
	if (rc == BND_OK && asked) {
		bnd_submit_options_text(s, opts, sizeof(opts));
		set_string(L, "options", opts);
		push_sets(L, s);
	} else if (rc != BND_OK) {
		set_string(L, rc == BND_ENOFIT ? "refused" : "error", err);
	}
	if (r)
		bnd_request_clear(r);
	free(r);
	free(s);
	return 1;
}

/* site() -> { mode=, on_error=, why= }: the site's settings, read when
 * the filter needs submit_error= (a translation that failed). */
static int l_site(lua_State *L)
{
	struct bnd_submit_site site;
	bnd_siteconf_submit(NULL, &site);
	lua_newtable(L);
	set_string(L, "mode", bnd_submit_mode_name(site.mode));
	set_string(L, "on_error", bnd_submit_error_name(site.on_error));
	set_string(L, "why", site.why);
	return 1;
}

int luaopen_spank_binding_submit(lua_State *L)
{
	static const luaL_Reg fns[] = { { "translate", l_translate }, { "site", l_site },
					{ NULL, NULL } };
	lua_newtable(L);
	luaL_register(L, NULL, fns);
	return 1;
}
