// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * statickeys-keys PID --set NAME=on|off | --dyndbg QUERY | --sites: a
 * request to the control channel of a process that opened one
 * (kernel/control.c, Documentation/control.rst).  The tool checks that
 * the socket it reached belongs to PID (a process may bind any free name),
 * prints the reply's data lines on standard output and an error on
 * standard error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "keys_control.h"

#define REPLY_TIMEOUT_S	10	/* the server answers within 3 s */

static int control_connect(long pid, const char *prog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = REPLY_TIMEOUT_S };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, n;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "statickeys-control.%ld", pid);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n))) {
		if (errno == ECONNREFUSED)
			fprintf(stderr, "%s: process %ld has no control channel (it opens one with statickeys_control_start() or STATICKEYS_CONTROL=1)\n",
				prog, pid);
		else
			fprintf(stderr, "%s: process %ld: control channel: %s\n",
				prog, pid, strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		goto fail;
	if (cred.pid != pid) {
		fprintf(stderr, "%s: the control channel of process %ld is held by process %d: not used\n",
			prog, pid, (int)cred.pid);
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
fail:
	fprintf(stderr, "%s: process %ld: control channel: %s\n", prog, pid,
		strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static int send_line(int fd, const char *request)
{
	size_t len = strlen(request);
	char *buf = malloc(len + 1);
	size_t off = 0;
	ssize_t n = 0;

	if (!buf)
		return -1;
	memcpy(buf, request, len);
	buf[len++] = '\n';
	while (off < len && (n = send(fd, buf + off, len - off, MSG_NOSIGNAL)) > 0)
		off += (size_t)n;
	free(buf);
	return off == len ? 0 : -1;
}

/*
 * The process may be hostile (root asks any process): what it sends is
 * printed with every byte outside printable ASCII as '?', in pieces of a
 * bounded size, and no more than MAX_REPLY bytes in all.
 */
#define MAX_REPLY	(64UL << 20)

static void print_clean(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((*s >= 0x20 && *s < 0x7f) || *s == '\n' || *s == '\t' ?
		      *s : '?', out);
}

int control_request(long pid, const char *request, bool show_ok,
		    const char *prog)
{
	bool line_start = true, data = false;
	unsigned long total = 0;
	char buf[4096];
	int fd, ret = 1;
	FILE *f;

	fd = control_connect(pid, prog);
	if (fd < 0)
		return 1;
	/*
	 * A refused peer's request may meet a closed socket (EPIPE, never
	 * SIGPIPE): the reply waiting to be read says why.
	 */
	if ((send_line(fd, request) && errno != EPIPE && errno != ECONNRESET) ||
	    !(f = fdopen(fd, "r"))) {
		fprintf(stderr, "%s: process %ld: control channel: %s\n", prog,
			pid, strerror(errno));
		close(fd);
		return 1;
	}
	while (total < MAX_REPLY && fgets(buf, sizeof(buf), f)) {
		bool ends = strchr(buf, '\n') != NULL;

		total += strlen(buf);
		if (line_start)
			data = buf[0] == ' ';
		if (data) {
			print_clean(stdout, buf + line_start);
		} else if (line_start && !strncmp(buf, "ok", 2)) {
			if (show_ok) {
				printf("%ld: ", pid);
				print_clean(stdout, buf);
			}
			ret = 0;
			break;
		} else {
			fprintf(stderr, "%s: process %ld: ", prog, pid);
			print_clean(stderr, buf);
			if (!ends)
				fputc('\n', stderr);
			break;
		}
		line_start = ends;
	}
	if (ret && !(total && !data))
		fprintf(stderr, "%s: process %ld: the reply ended early%s\n",
			prog, pid, total >= MAX_REPLY ? " (over 64 MiB: not read)" : "");
	fclose(f);
	return ret;
}
