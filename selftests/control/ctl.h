/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A peer of the control channel, for the tests: connect to a process's
 * "@statickeys-control.<pid>", as some user, send bytes, read the reply.
 */
#ifndef _SELFTESTS_CTL_H
#define _SELFTESTS_CTL_H

#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Connected to @pid's channel, or -errno. */
static inline int ctl_connect(pid_t pid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, n;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "statickeys-control.%d", (int)pid);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n))) {
		n = -errno;
		close(fd);
		return n;
	}
	return fd;
}

/* Read until the server closes; the reply NUL-terminated (truncated). */
static inline ssize_t ctl_read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return (ssize_t)len;
}

/* Become @uid (and its gid, no groups); 0 stays root. */
static inline int ctl_become(uid_t uid)
{
	if (!uid)
		return 0;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	return 0;
}

#endif /* _SELFTESTS_CTL_H */
