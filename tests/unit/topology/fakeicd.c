/* A stand-in OpenCL vendor library (an ICD), for test_topology's
 * vendor_runtimes_stay_out: loading it does what vendor runtimes do in the
 * process that loads them, a thread of its own and a descriptor that is not
 * close-on-exec. Built by the Makefile as build/tests/fakeicd.so and named
 * to the ICD loader by OCL_ICD_VENDORS; it never answers as a platform. */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

void bnd_fakeicd_loaded(void);
void bnd_fakeicd_loaded(void)
{
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void at_load(void)
{
	pthread_t t;
	if (open("/dev/null", O_RDONLY) < 0 || pthread_create(&t, NULL, idle, NULL))
		_exit(97);
}
