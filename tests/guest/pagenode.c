/* pagenode MIB: allocates MIB MiB under the calling task's memory policy,
 * touches every page, and prints how many pages move_pages(2) finds on
 * each NUMA node ("node0=.. node1=.. ...") and the task's policy. The
 * guest tests read where a real Slurm task's memory went. */
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 16;
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (size_t)(mib * 1024 * 1024 / page);
	char *buf = aligned_alloc((size_t)page, n * (size_t)page);
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	long count[64] = { 0 };
	int mode = -1;
	unsigned long mask = 0;

	if (!buf || !pages || !status || numa_available() < 0) {
		fprintf(stderr, "pagenode: no memory or no NUMA\n");
		return 1;
	}
	/* Small pages only: a transparent huge page lands on one node as a
	 * whole, so interleaving would come out in 2 MiB lumps. */
	madvise(buf, n * (size_t)page, MADV_NOHUGEPAGE);
	memset(buf, 1, n * (size_t)page);
	for (size_t i = 0; i < n; i++)
		pages[i] = buf + i * (size_t)page;
	if (move_pages(0, n, pages, NULL, status, 0) != 0) {
		perror("move_pages");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < 64)
			count[status[i]]++;
	if (get_mempolicy(&mode, &mask, sizeof(mask) * 8, NULL, 0) != 0)
		perror("get_mempolicy");
	const char *names[] = { "default", "preferred", "bind", "interleave", "local" };
	printf("policy=%s mask=%#lx pages=%zu", mode >= 0 && mode < 5 ? names[mode] : "?",
	       mask, n);
	for (int d = 0; d <= numa_max_node(); d++)
		printf(" node%d=%ld", d, count[d]);
	printf("\n");
	return 0;
}
