// SPDX-License-Identifier: GPL-2.0
/*
 * counter FILE: count in user mode, forever, into the first 8 bytes of FILE
 * (created, mapped shared), with no syscall in the loop: while the count
 * stands still, no user instruction of the program runs.
 */
#include <stdint.h>
#include <sys/mman.h>
#include "progs.h"

int main(int argc, char **argv)
{
	volatile uint64_t *count;
	int fd;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(argv[1]);
	if (ftruncate(fd, sizeof(*count)) < 0)
		die("ftruncate");
	count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (count == MAP_FAILED)
		die("mmap");
	for (;;)
		(*count)++;
}
