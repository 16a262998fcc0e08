-- Checks the project's cli_filter.lua outside Slurm (tests/cli/t_submit.sh):
-- lua5.1 cli_filter_check.lua BUILT_CLI_FILTER SBIND [MODULE]
-- Every check runs twice: with the translation module (MODULE, when
-- given) and through sbind; and the two answer alike for a set of
-- requests.
-- A stand-in for the two things cli_filter/lua gives a script: the
-- `slurm` table (json_cli_options, log_*, SUCCESS/ERROR) and an options
-- object that reads and writes by name through a metatable and returns
-- "invalid-context" for another command's options, as Slurm 22.05's does.
-- The real filter in real Slurm: tests/e2e/t27_submit.sh.
local script, sbind = arg[1], arg[2]
local module = arg[3] ~= "" and arg[3] or nil
local n, failed = 0, 0
local function check(ok, what, detail)
	n = n + 1
	if ok then
		print("ok " .. n .. " - lua: " .. what)
	else
		failed = failed + 1
		print("not ok " .. n .. " - lua: " .. what)
		if detail then print("#   " .. tostring(detail)) end
	end
end

local logs = {}
slurm = {
	SUCCESS = 0, ERROR = -1,
	log_info = function(fmt, ...) logs[#logs + 1] = "info: " .. string.format(fmt, ...) end,
	log_error = function(fmt, ...) logs[#logs + 1] = "error: " .. string.format(fmt, ...) end,
	json_cli_options = function(o) return getmetatable(o).json end,
}

-- options for command cmd with the JSON that json_cli_options returns
local function options(cmd, json, values)
	local set = {}
	local srun_only = { ["cpu-bind"] = true }
	local sbatch_only = { wrap = true }
	local mt = {
		json = json,
		__index = function(_, k)
			if srun_only[k] and cmd ~= "srun" then return "invalid-context" end
			if sbatch_only[k] and cmd ~= "sbatch" then return "invalid-context" end
			return (values or {})[k]
		end,
		__newindex = function(_, k, v) set[k] = v end,
	}
	return setmetatable({}, mt), set
end

local M = dofile(script)
local label = ""
local function check2(ok, what, detail) check(ok, label .. what, detail) end

local function scenarios()
	check2(type(slurm_cli_pre_submit) == "function" and type(slurm_cli_setup_defaults) == "function"
		and type(slurm_cli_post_submit) == "function", "defines Slurm's three functions")
	check2(slurm_cli_pre_submit == M.pre_submit, "slurm_cli_pre_submit is the module's")
	check2(slurm_cli_post_submit(0, 1, 0) == slurm.SUCCESS and slurm_cli_setup_defaults({}, true) == 0,
		"setup_defaults and post_submit succeed")

	-- JSON as Slurm writes it (escapes, arrays, a quote in a value) reaches
	-- the translation whole: -n2 -c1 with linear:2 is refused with both numbers
	logs = {}
	local o, set = options("srun", '{"ntasks":"2","spank:binding":"linear:2","argv":["a\\"b","[x]"],' ..
		'"wrap":"echo \\"x\\" \\/ \\u0041","cpus-per-task":"1"}', {})
	check2(M.pre_submit(o, 0) == slurm.ERROR and next(set) == nil and
		(logs[1] or ""):find("-c 1 gives 1", 1, true) ~= nil,
		"Slurm's JSON, escapes and arrays in it, is read whole (jansson)", logs[1])
	-- not JSON at all: no answer, the job goes on (submit_error=continue)
	logs = {}
	o, set = options("srun", '{"spank:binding":"linear:2",', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and next(set) == nil and
		(logs[1] or ""):find("not a JSON object", 1, true) ~= nil,
		"JSON cut short: said, nothing applied", logs[1])

	-- no binding: nothing run, nothing set
	o, set = options("srun", '{"ntasks":"4","argv":["true"]}', { verbose = "0" })
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and next(set) == nil, "no --binding: untouched")

	-- srun -n4 --binding=linear:2: -c 2 and --threads-per-core=1, -v says so
	logs = {}
	o, set = options("srun", '{"ntasks":"4","spank:binding":"linear:2","argv":["true"]}',
		{ verbose = "1" })
	check2(M.pre_submit(o, 0) == slurm.SUCCESS, "linear:2 -n4 succeeds")
	check2(set["cpus-per-task"] == "2" and set["threads-per-core"] == "1", "linear:2 -n4 sets -c 2 and --threads-per-core=1",
		table.concat(logs, " | "))
	check2(logs[1] and logs[1]:find("added %-%-cpus%-per%-task=2", 1) ~= nil, "-v logs what it added", logs[1])

	-- refused: both numbers, ERROR, nothing set
	logs = {}
	o, set = options("srun", '{"ntasks":"1","cpus-per-task":"1","spank:binding":"linear:2"}', {})
	check2(M.pre_submit(o, 0) == slurm.ERROR and next(set) == nil, "-c1 linear:2 is refused")
	check2(logs[1] == "error: spank-binding: --binding=linear:2 needs 2 cores per task; -c 1 gives 1",
		"the refusal names both numbers", logs[1])

	-- sbatch: whole sockets get --exclusive (the flag's value is its name)
	o, set = options("sbatch", '{"ntasks":"2","spank:binding":"packed:1:unit=S","wrap":"x"}', { wrap = "x" })
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and set["exclusive"] == "exclusive"
		and set["ntasks-per-socket"] == "1", "sbatch packed:1:unit=S: --exclusive --ntasks-per-socket=1")
	-- salloc: neither srun's nor sbatch's options
	o, set = options("salloc", '{"spank:binding":"explicit:0,0"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and set["exclusive"] == "exclusive", "salloc explicit: --exclusive")
	-- srun -n2 with named cores: refused with the way to do it
	logs = {}
	o, set = options("srun", '{"ntasks":"2","spank:binding":"explicit:0,0:0,1"}', {})
	check2(M.pre_submit(o, 0) == slurm.ERROR and (logs[1] or ""):find("inside salloc or sbatch", 1, true),
		"srun -n2 explicit is refused", logs[1])
	-- a step inside a job: --jobid makes it one
	o, set = options("srun", '{"jobid":"7","ntasks":"2","spank:binding":"packed:1:unit=S"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and next(set) == nil, "a step's whole-node binding adds nothing")
	-- --mbind=nlocal alone binds a core per task
	o, set = options("srun", '{"ntasks":"2","spank:mbind":"nlocal"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and set["threads-per-core"] == "1", "--mbind=nlocal: --threads-per-core=1")
	-- a flag member ("set") and a value with a quote in it reach sbind intact
	logs = {}
	o, set = options("srun", '{"overcommit":"set","spank:binding":"linear:1"}', {})
	check2(M.pre_submit(o, 0) == slurm.ERROR and (logs[1] or ""):find("--overcommit", 1, true), "--overcommit reaches sbind", logs[1])
	logs = {}
	local marker = os.tmpname()
	os.remove(marker)
	o, set = options("srun", '{"spank:binding":"linear:1\'; touch ' .. marker .. '; echo \'"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and (logs[1] or ""):find("not a refusal", 1, true) and next(set) == nil
		and io.open(marker) == nil,
		"a quote in a value stays in one argument, never runs (sbind refuses it; the plugin judges)", logs[1])

	-- heterogeneous jobs: one binding for all components
	logs = {}
	M.het_seen = nil
	o = options("srun", '{"ntasks":"1","spank:binding":"linear:2"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS, "het component 0")
	o = options("srun", '{"ntasks":"1","spank:binding":"linear:2"}', {})
	check2(M.pre_submit(o, 1) == slurm.SUCCESS, "het component 1 with the same binding")
	o = options("srun", '{"ntasks":"1","spank:binding":"linear:1"}', {})
	check2(M.pre_submit(o, 2) == slurm.ERROR and (logs[#logs] or ""):find("component 2 would change", 1, true),
		"het component 2 changing the binding is refused", logs[#logs])
	M.het_seen = nil
	o = options("srun", '{"ntasks":"1"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS, "het component 0 without a binding")
	o = options("srun", '{"ntasks":"1","spank:binding":"linear:1"}', {})
	check2(M.pre_submit(o, 1) == slurm.ERROR, "het component 1 adding a binding the first would get too is refused")

	-- sbind (or the module) missing: the submission goes on, the error is logged
	logs = {}
	M.sbind = "/nonexistent/sbind"
	M.module = ""
	M.mod = nil
	M.het_seen = nil
	o, set = options("srun", '{"spank:binding":"linear:2"}', {})
	check2(M.pre_submit(o, 0) == slurm.SUCCESS and next(set) == nil and (logs[1] or ""):find("failed", 1, true),
		"without sbind: logged, not refused", logs[1])
	-- the message cannot be read as a refusal (issue 32 item 13)
	check2((logs[1] or ""):find("warning, not a refusal", 1, true) and
		(logs[1] or ""):find("submitted as given, untranslated (submit_error=continue)", 1, true),
		"without sbind: the message says the job goes on untranslated", logs[1])


end

-- Stand-ins for a broken sbind (issue 32 item 5): shell scripts that print
-- an answer and then die, or answer options the translation never sets.
-- Nothing of such an answer is applied.
local scratch = os.tmpname()
os.remove(scratch)
os.execute("mkdir -p '" .. scratch .. "'")
local function standin(name, body)
	local path = scratch .. "/" .. name
	local f = assert(io.open(path, "w"))
	f:write("#!/bin/sh\n" .. body .. "\n")
	f:close()
	os.execute("chmod 755 '" .. path .. "'")
	return path
end
local answer = 'echo "request: --binding=linear:2: 2 whole cores per task"\n' ..
	'echo "options: --cpus-per-task=2 --threads-per-core=1"\n' ..
	'echo "set --uid=0: root"\necho "set --cpus-per-task=2: 2 cores per task"\n'
local dies = standin("dies", answer .. "kill -SEGV $$")
local fails = standin("fails", answer .. "exit 1")
local lies = standin("lies", answer .. "exit 0")
local gres_lie = standin("gres_lie", 'echo "request: --binding=linear:2: 2 whole cores per task"\n' ..
	'echo "set --gres=gpu:8: all the GPUs"\nexit 0')
local gres_odd = standin("gres_odd", 'echo "request: --binding=linear:2: 2 whole cores per task"\n' ..
	'echo "set --gres=numamem:400M;--uid=0: a second option in its value"\nexit 0')
local refusing = standin("refusing", 'case "$*" in *--site*) ' ..
	'echo "site: submit=translate submit_error=refuse (stand-in)"; exit 0;; esac\n' .. answer ..
	"kill -SEGV $$")

local function broken(path, want_rc, want_log, what)
	logs = {}
	M.sbind, M.module, M.mod, M.het_seen = path, "", nil, nil
	local o, set = options("srun", '{"ntasks":"1","spank:binding":"linear:2"}', {})
	local rc = M.pre_submit(o, 0)
	check(rc == want_rc and next(set) == nil and (logs[1] or ""):find(want_log, 1, true) ~= nil,
		"[broken sbind] " .. what, tostring(rc) .. " " .. tostring(logs[1]))
end
broken(dies, slurm.SUCCESS, "killed by signal 11",
	"a stand-in that prints options and dies of SIGSEGV: nothing applied, not refused")
broken(fails, slurm.SUCCESS, "exit 1", "a whole answer with exit 1: nothing applied")
broken(lies, slurm.SUCCESS, "never sets: --uid=0",
	"an answer naming an option the translation never sets (--uid=0): nothing applied")
broken(gres_lie, slurm.SUCCESS, "never sets: --gres=gpu:8",
	"--gres the translation never asks (no numamem in it): nothing applied")
broken(gres_odd, slurm.SUCCESS, "never sets: --gres=numamem:400M;--uid=0",
	"--gres with more than GRES words in its value: nothing applied")
broken(refusing, slurm.ERROR, "submission refused",
	"submit_error=refuse (sbind --site): the dying stand-in's submission is refused")
broken(refusing, slurm.ERROR, "this site refuses untranslated submissions (submit_error=refuse, stand-in)",
	"the refusal says why and where the setting comes from")
os.execute("rm -rf '" .. scratch .. "'")

-- With SLURM_CONF naming a site whose plugstack.conf says submit_error=refuse
-- (t_submit.sh's second run): a translation error (a bad value the module or
-- sbind cannot read) refuses the submission, through either path.
if arg[4] == "refuse" then
	for _, mode in ipairs({ "module", "sbind" }) do
		if mode == "sbind" or module then
			logs = {}
			M.sbind, M.module, M.mod, M.het_seen = sbind, mode == "module" and module or "", nil, nil
			local o, set = options("srun", '{"cpus-per-task":"x","spank:binding":"linear:2"}', {})
			check(M.pre_submit(o, 0) == slurm.ERROR and next(set) == nil and
				(logs[1] or ""):find("submit_error=refuse", 1, true) ~= nil,
				"[" .. mode .. "] submit_error=refuse: an untranslatable submission is refused",
				logs[1])
		end
	end
	print(string.format("# %d checks, %d failed", n, failed))
	os.exit(failed == 0 and 0 or 1)
end

for _, mode in ipairs({ "module", "sbind" }) do
	if mode == "module" and not module then
		print("ok " .. (n + 1) .. " - lua: the module # SKIP not built")
		n = n + 1
	else
		label = "[" .. mode .. "] "
		M.sbind = sbind
		M.module = mode == "module" and module or ""
		M.mod = nil
		scenarios()
	end
end

-- The module and sbind give the same answer.
if module then
	local vectors = {
		{ "srun", '{"ntasks":"4","spank:binding":"linear:2"}' },
		{ "srun", '{"ntasks":"1","cpus-per-task":"1","spank:binding":"linear:2"}' },
		{ "sbatch", '{"ntasks":"2","spank:binding":"packed:1:unit=N"}' },
		{ "salloc", '{"spank:binding":"explicit:0,0:1,3","ntasks":"2"}' },
		{ "srun", '{"jobid":"7","ntasks":"2","threads-per-core":"1","spank:binding":"linear:2"}' },
		{ "srun", '{"ntasks":"2","spank:mbind":"nlocal","mem-bind":"local"}' },
		{ "sbatch", '{"ntasks":"3","ntasks-per-node":"2","spank:binding":"packed:4:type=node"}' },
		{ "srun", '{"ntasks":"2","spank:mbind":"cores"}' },
	}
	local function flat(r)
		local t = { r.binding or "", r.mbind or "", r.untouched and "untouched" or "",
			r.request or "", r.refused or "", r.error and "error" or "" }
		for _, x in ipairs(r.sets or {}) do t[#t + 1] = x.name .. "=" .. x.value .. ":" .. x.why end
		for _, x in ipairs(r.notes or {}) do t[#t + 1] = x end
		return table.concat(t, "|")
	end
	M.sbind = sbind
	for _, v in ipairs(vectors) do
		M.module, M.mod = module, nil
		local a = flat(M.translate(v[2], v[1]))
		M.module, M.mod = "", nil
		local b = flat(M.translate(v[2], v[1]))
		check(a == b and a ~= "", "module and sbind agree: " .. v[1] .. " " .. v[2], a .. " ~= " .. b)
	end
end

print(string.format("# %d checks, %d failed", n, failed))
os.exit(failed == 0 and 0 or 1)
