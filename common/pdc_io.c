/* pdc_io.c - see pdc_io.h. */
#include "pdc_io.h"

#include <errno.h>
#include <unistd.h>

size_t pdc_read_up_to(int fd, void *buf, size_t size)
{
	unsigned char *b = buf;
	size_t got = 0;

	while (got < size) {
		const ssize_t n = read(fd, b + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}
