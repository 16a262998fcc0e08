#include "binding/suspend/pollrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/safefile.h"

/* One page: a word of it is used, the rest left for later needs. */
#define PAGE 4096

struct bnd_pollrate {
	_Atomic long long *next; /* monotonic ms at which the node may ask again */
};

/* The file, opened and trusted (root's, not writable by others), a page
 * long. */
static int open_file(int dirfd, char *err, size_t errlen)
{
	int fd = openat(dirfd, BND_POLLRATE_FILE_NAME,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0)
		return bnd_fail(err, errlen, errno == ELOOP || errno == EACCES ? BND_ESTATE : BND_ESYS,
				"%s: %s", BND_POLLRATE_FILE_NAME, strerror(errno));
	struct stat st;
	char why[128];
	if (fstat(fd, &st) || bnd_safe_untrusted(&st, 0, why, sizeof(why)) ||
	    (st.st_mode & 077)) {
		close(fd);
		return bnd_fail(err, errlen, BND_ESTATE, "%s refused: %s", BND_POLLRATE_FILE_NAME,
				st.st_mode & 077 ? "readable by others" : why);
	}
	if (st.st_size < PAGE && ftruncate(fd, PAGE)) {
		int e = errno;
		close(fd);
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", BND_POLLRATE_FILE_NAME, strerror(e));
	}
	return fd;
}

int bnd_pollrate_open(const char *state_dir, struct bnd_pollrate **out, char *err,
		      size_t errlen)
{
	*out = NULL;
	int dirfd, rc = bnd_safedir_open(state_dir, 1, &dirfd, err, errlen);
	if (rc)
		return rc;
	int fd = open_file(dirfd, err, errlen);
	close(dirfd);
	if (fd < 0)
		return fd;
	void *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	struct bnd_pollrate *p = page == MAP_FAILED ? NULL : malloc(sizeof(*p));
	if (!p) {
		if (page != MAP_FAILED)
			munmap(page, PAGE);
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", BND_POLLRATE_FILE_NAME,
				page == MAP_FAILED ? strerror(e) : "out of memory");
	}
	/* A fork (the tasks) must not share root's writable page. */
	madvise(page, PAGE, MADV_DONTFORK);
	p->next = page;
	*out = p;
	return BND_OK;
}

int bnd_pollrate_take(struct bnd_pollrate *p, long long now_ms, long long interval_ms)
{
	if (!p)
		return 1;
	long long next = atomic_load(p->next);
	/* A value from far ahead (another boot's clock: the file survives
	 * nothing but a reboot, where /run starts empty) is ignored. */
	if (now_ms < next && next - now_ms <= interval_ms)
		return 0;
	return atomic_compare_exchange_strong(p->next, &next, now_ms + interval_ms);
}

void bnd_pollrate_close(struct bnd_pollrate *p)
{
	if (!p)
		return;
	munmap((void *)p->next, PAGE);
	free(p);
}
