#include "binding/report/receipts.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "binding/report/receipt.h"
#include "binding/util/error.h"

/* More tasks than srun would start for one per node on any cluster. */
#define MAX_TASKS 1000000

void bnd_receipts_free_answers(char **answers, int n)
{
	for (int i = 0; answers && i < n; i++)
		free(answers[i]);
	free(answers);
}

/* "  3: text" -> 3 and where the text starts; -1 when not labeled. */
static long label_of(const char *line, const char **text)
{
	const char *p = line;
	while (*p == ' ')
		p++;
	char *end;
	if (*p < '0' || *p > '9')
		return -1;
	long task = strtol(p, &end, 10);
	if (end[0] != ':' || end[1] != ' ' || task >= MAX_TASKS)
		return -1;
	*text = end + 2;
	return task;
}

/* answers[task] += piece (len bytes); grows the array to task + 1. */
static int append(char ***answers, int *n, long task, const char *piece, size_t len)
{
	if (task >= *n) {
		char **a = realloc(*answers, (size_t)(task + 1) * sizeof(*a));
		if (!a)
			return BND_ENOMEM;
		memset(a + *n, 0, (size_t)(task + 1 - *n) * sizeof(*a));
		*answers = a;
		*n = (int)task + 1;
	}
	size_t have = (*answers)[task] ? strlen((*answers)[task]) : 0;
	char *s = realloc((*answers)[task], have + len + 1);
	if (!s)
		return BND_ENOMEM;
	memcpy(s + have, piece, len);
	s[have + len] = '\0';
	(*answers)[task] = s;
	return BND_OK;
}

int bnd_receipts_split(const char *labeled, char ***answers, int *n, char *err, size_t errlen)
{
	*answers = NULL;
	*n = 0;
	for (const char *line = labeled; line && *line;) {
		const char *nl = strchr(line, '\n'), *text;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		long task = label_of(line, &text);
		int rc = BND_OK;
		if (task < 0 || text > line + len)
			rc = bnd_fail(err, errlen, BND_EINVAL,
				      "srun printed a line without a task label (\"<task>: <text>\"): "
				      "\"%.*s\"", (int)(len < 80 ? len : 80), line);
		else
			rc = append(answers, n, task, text, len - (size_t)(text - line));
		if (rc) {
			if (rc == BND_ENOMEM)
				bnd_fail(err, errlen, rc, "out of memory");
			bnd_receipts_free_answers(*answers, *n);
			*answers = NULL;
			*n = 0;
			return rc;
		}
		line = nl ? nl + 1 : NULL;
	}
	return BND_OK;
}

static int node_index(const char *const *nodes, int nnodes, const char *name)
{
	for (int i = 0; name && i < nnodes; i++)
		if (!strcmp(nodes[i], name))
			return i;
	return -1;
}

/* One answer checked and filed under its node in got[]. */
static int file_answer(uint32_t job, const char *const *nodes, int nnodes, const char *answer,
		       json_t **got, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(answer, 0, &je);
	const char *node = json_string_value(json_object_get(o, "node"));
	int i = node_index(nodes, nnodes, node);
	int rc = BND_EINVAL;
	if (!o || !json_is_array(json_object_get(o, "steps")))
		bnd_fail(err, errlen, rc, "a node's answer is not a receipt (%s): \"%.80s\"",
			 o ? "no \"steps\"" : je.text, answer);
	else if (json_integer_value(json_object_get(o, "job")) != (json_int_t)job)
		bnd_fail(err, errlen, rc, "node %s answered for job %" JSON_INTEGER_FORMAT
			 ", not job %" PRIu32, node ? node : "?",
			 json_integer_value(json_object_get(o, "job")), job);
	else if (i < 0)
		bnd_fail(err, errlen, rc, "an answer came from node \"%s\", which is not one of "
			 "job %" PRIu32 "'s nodes", node ? node : "(no name)", job);
	else if (got[i])
		bnd_fail(err, errlen, rc, "node %s answered twice", node);
	else {
		got[i] = o;
		return BND_OK;
	}
	json_decref(o);
	return rc;
}

static json_t *merged_of(uint32_t job, const char *const *nodes, int nnodes, json_t **got)
{
	json_t *answered = json_array(), *missing = json_array();
	for (int i = 0; answered && missing && i < nnodes; i++) {
		int rc = got[i] ? json_array_append(answered, got[i])
				: json_array_append_new(missing, json_string(nodes[i]));
		if (rc) {
			json_decref(answered);
			answered = NULL;
		}
	}
	if (!answered || !missing) {
		json_decref(answered);
		json_decref(missing);
		return NULL;
	}
	return json_pack("{s:I, s:o, s:o}", "job", (json_int_t)job, "nodes", answered, "missing",
			 missing);
}

int bnd_receipts_merge(uint32_t job, const char *const *nodes, int nnodes, char *const *answers,
		       int nanswers, json_t **out, char *err, size_t errlen)
{
	json_t **got = calloc((size_t)nnodes + 1, sizeof(*got));
	int rc = got ? BND_OK : BND_ENOMEM;
	*out = NULL;
	for (int a = 0; !rc && a < nanswers; a++)
		if (answers[a])
			rc = file_answer(job, nodes, nnodes, answers[a], got, err, errlen);
	if (!rc && !(*out = merged_of(job, nodes, nnodes, got)))
		rc = BND_ENOMEM;
	if (rc == BND_ENOMEM)
		bnd_fail(err, errlen, rc, "out of memory");
	for (int i = 0; got && i < nnodes; i++)
		json_decref(got[i]);
	free(got);
	return rc;
}

int bnd_receipts_render(const json_t *merged, long long now_ms, FILE *out)
{
	const json_t *nodes = json_object_get(merged, "nodes");
	for (size_t i = 0; i < json_array_size(nodes); i++)
		if (bnd_receipt_render(json_array_get(nodes, i), now_ms, out) != BND_OK)
			return BND_ENOMEM;
	return ferror(out) ? BND_ENOMEM : BND_OK;
}
