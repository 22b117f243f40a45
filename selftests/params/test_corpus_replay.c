// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Replays the fuzz corpus (selftests/params/corpus/) through the same checks
 * as fuzz_cmdline.c, without libFuzzer: one TAP line per file, each in a
 * child so that a crash fails that file only.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "tap.h"

#ifndef CORPUS_DIR
#define CORPUS_DIR	"selftests/params/corpus"
#endif

struct input {
	const char *path;
	uint8_t *data;
	size_t size;
};

static int is_input(const struct dirent *d)
{
	return d->d_name[0] != '.' && strncmp(d->d_name, "README", 6) != 0;
}

static int read_file(const char *path, struct input *in)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	ssize_t r = -1;

	in->path = path;
	in->data = NULL;
	in->size = 0;
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		in->size = st.st_size;
		in->data = malloc(in->size + 1);
		if (in->data)
			r = read(fd, in->data, in->size);
	}
	if (fd >= 0)
		close(fd);
	return r == (ssize_t)in->size ? 0 : -1;
}

static int replay_child(void *arg)
{
	struct input *in = arg;
	int fd = open("/dev/null", O_WRONLY);

	dup2(fd, 2);	/* malformed words print their one line each */
	return fz_one(in->data, in->size);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("SK_CORPUS_DIR");
	struct dirent **names;
	char path[4096];
	struct input in;
	int n, i, st;

	if (!dir)
		dir = CORPUS_DIR;
	unsetenv(STATICKEYS_CMDLINE_ENV);
	n = scandir(dir, &names, is_input, alphasort);
	if (n <= 0) {
		tap_plan(1);
		tap_ok(0, "corpus %s has inputs", dir);
		return tap_exit();
	}
	tap_plan(n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		st = read_file(path, &in) ? -1 : tap_fork(replay_child, &in);
		tap_ok(st == 0, "%s (status %d)", names[i]->d_name, st);
		free(in.data);
		free(names[i]);
	}
	free(names);
	return tap_exit();
}
