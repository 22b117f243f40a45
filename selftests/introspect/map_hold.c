// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * map_hold FILE...: a process that maps each FILE executable, as a loader
 * would map an object, says "ready <pid>" and waits for the end of its
 * standard input.  test_keys_hostile.sh points statickeys-keys at it with
 * forged ELF files mapped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	char c;
	int i, fd;

	for (i = 1; i < argc; i++) {
		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) ||
		    mmap(NULL, st.st_size ? (size_t)st.st_size : 1,
			 PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror(argv[i]);
			return 2;
		}
		close(fd);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
