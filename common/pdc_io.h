/*
 * pdc_io.h - reading a file descriptor whole, as far as it goes.
 *
 * read() may return less than asked (a pipe, a signal, /proc and /sys
 * files that hand out a page at a time), so a file read into a buffer is
 * a loop; the places that want "up to size bytes, whatever the file has"
 * share this one, and those that tell a read error from the end of the
 * file keep their own.
 *
 *	size_t n = pdc_read_up_to(fd, buf, sizeof(buf));
 */
#ifndef PDC_IO_H
#define PDC_IO_H

#include <stddef.h>

/* Up to size bytes of fd into buf, until its end or an error (EINTR
 * retried): the number read. */
size_t pdc_read_up_to(int fd, void *buf, size_t size);

#endif
