/* A job's receipt over all of its nodes (sbind status --job J --all-nodes):
 * each node answers with its own receipt as JSON (report/receipt.h), run
 * there by `srun --label` in one step of the job; these functions take
 * srun's output apart and put the answers together, in the order of the
 * job's node list:
 *
 *   {"job":12,"nodes":[{"job":12,"node":"n1","steps":[...]},
 *                      {"job":12,"node":"n2","steps":[]}],"missing":[]}
 *
 * "missing" names the job's nodes that gave no answer (the caller says so
 * and fails). The text is each node's receipt text in turn. Pure: nothing
 * here runs srun or reads a state. */
#ifndef BINDING_REPORT_RECEIPTS_H
#define BINDING_REPORT_RECEIPTS_H

#include <stdint.h>
#include <stdio.h>

struct json_t;

/* srun --label's stdout: "<task>: <text>" lines (the label right-aligned
 * to the widest task id), where srun cuts a long line into several
 * labeled pieces. Each task's pieces joined in order, without the line
 * ends: answers[task] (malloc'd, NULL for a task that printed nothing),
 * *n one past the highest task id. An unlabeled line is an error naming
 * it. Free with bnd_receipts_free_answers. BND_OK, BND_EINVAL, BND_ENOMEM. */
int bnd_receipts_split(const char *labeled, char ***answers, int *n, char *err, size_t errlen);
void bnd_receipts_free_answers(char **answers, int n);

/* The merged receipt of job J (*out, a new reference) from the answers
 * (NULL entries skipped) of the nodes named in nodes[]: an answer that is
 * not a receipt of job J from one of them, or a second answer from one
 * node, is an error naming the answer. BND_OK, BND_EINVAL, BND_ENOMEM. */
int bnd_receipts_merge(uint32_t job, const char *const *nodes, int nnodes, char *const *answers,
		       int nanswers, struct json_t **out, char *err, size_t errlen);

/* The merged receipt as text: each answering node's receipt in turn
 * (bnd_receipt_render). BND_OK or BND_ENOMEM. */
int bnd_receipts_render(const struct json_t *merged, long long now_ms, FILE *out);

#endif
