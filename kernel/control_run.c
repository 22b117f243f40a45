// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * What a control request does, once kernel/control.c has read it and
 * obeys its peer: list the keys or the dynamic-debug sites, switch a key
 * through the API the program itself calls, run a query.  The reply is
 * built in memory (data lines start with one space, the last line is
 * "ok ..." or "error: ...") and sent by the caller, so that no library lock
 * is held while a peer is waited for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/batch.h>
#include <statickeys/control.h>
#include <statickeys/introspect.h>
#include <statickeys/statickeys.h>
#ifdef CONFIG_DYNAMIC_DEBUG
#define __SK_DYNDBG_NO_TABLE
#include <linux/dynamic_debug.h>
#include "ddebug.h"
#endif
#include "control.h"
#include "control_internal.h"
#include "internal.h"
#include "../lib/warn.h"

/* ---- private keys: a short list the program adds to ---- */

static pthread_mutex_t private_lock = PTHREAD_MUTEX_INITIALIZER;
static struct static_key **private_keys;
static size_t nr_private, max_private;

SK_EXPORT int statickeys_control_private(struct static_key *key)
{
	int ret;

	pthread_mutex_lock(&private_lock);
	ret = sk_reserve((void **)&private_keys, &max_private, nr_private,
			 sizeof(*private_keys));
	if (!ret)
		private_keys[nr_private++] = key;
	pthread_mutex_unlock(&private_lock);
	return ret;
}

static bool key_is_private(const void *key)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&private_lock);
	for (i = 0; i < nr_private && !found; i++)
		found = private_keys[i] == key;
	pthread_mutex_unlock(&private_lock);
	return found;
}

/* fork(): the list is the program's and stays; only its lock is reset. */
void sk_control_private_prepare(void)
{
	pthread_mutex_lock(&private_lock);
}

void sk_control_private_parent(void)
{
	pthread_mutex_unlock(&private_lock);
}

void sk_control_private_child(void)
{
	pthread_mutex_init(&private_lock, NULL);
}

/* ---- keys ---- */

/* Each line of @text, with one space before it. */
static void indent(FILE *out, const char *text)
{
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchrnul(text, '\n');
		fprintf(out, " %.*s\n", (int)(nl - text), text);
		if (!*nl)
			break;
	}
}

static void run_keys(FILE *out)
{
	char *table = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&table, &size);
	int n;

	if (!f) {
		fprintf(out, "error: out of memory\n");
		return;
	}
	n = statickeys_print_keys(f);
	fclose(f);
	if (n >= 0 && table) {
		indent(out, table);
		fprintf(out, "ok %d keys\n", n);
	} else {
		fprintf(out, "error: keys: %s\n", strerror(n < 0 ? -n : ENOMEM));
	}
	free(table);
}

struct key_match {
	const char *want;
	uintptr_t addr;			/* or 0: by name */
	unsigned int found;
	struct static_key *key;
	unsigned int flags;
	int count;
	char objects[256];		/* where the keys of that name are */
};

static int match_key(const struct statickeys_key_info *info, void *arg)
{
	struct key_match *m = arg;
	size_t used = strlen(m->objects);

	if (m->addr ? (uintptr_t)info->key != m->addr :
		      !info->name || strcmp(info->name, m->want))
		return 0;
	m->found++;
	m->key = (struct static_key *)info->key;
	m->flags = info->flags;
	m->count = info->count;
	snprintf(m->objects + used, sizeof(m->objects) - used, " %p",
		 info->key);
	return 0;
}

/*
 * The key is found by the walk introspection makes and changed inside one
 * batch: the batch holds the library's lock from before the walk until
 * the commit, so the key's object cannot unregister (its destructor takes
 * that lock) between finding the key and changing it.  The walk runs
 * inside the batch (it does not take the lock again) and asks the loader
 * nothing; the change made after it is queued and written by the commit.
 * What is said and logged waits until the lock is released.
 */
static void run_set(FILE *out, const struct sk_control_req *req,
		    const char *who)
{
	struct key_match m = { .want = req->arg };
	const char *state = req->on ? "on" : "off";
	char why[4608] = "";	/* the request (4 KiB at most) and more */
	int err, commit;

	if (req->arg[0] == '0')
		m.addr = strtoull(req->arg, NULL, 16);
	statickeys_batch_begin();
	err = statickeys_for_each_key(match_key, &m);
	if (err)
		snprintf(why, sizeof(why), "keys: %s", strerror(-err));
	else if (!m.found)
		snprintf(why, sizeof(why), "no key %s with a site in this process",
			 req->arg);
	else if (m.found > 1)
		snprintf(why, sizeof(why), "%u keys are named %s: name one by its address:%s",
			 m.found, req->arg, m.objects);
	else if (m.flags & STATICKEYS_KEY_RO)
		snprintf(why, sizeof(why), "key %s is read-only", req->arg);
	else if (key_is_private(m.key))
		snprintf(why, sizeof(why), "key %s is private", req->arg);
	else if (m.count > 1)
		snprintf(why, sizeof(why), "key %s is counted (count %d): only a key at 0 or 1 is switched",
			 req->arg, m.count);
	else if (req->on)
		static_key_enable(m.key);
	else
		static_key_disable(m.key);
	err = why[0] ? 0 : statickeys_last_error();
	commit = statickeys_batch_commit();
	if (why[0]) {
		fprintf(out, "error: %s\n", why);
		sk_warn("control: %s: set %s %s: refused", who, req->arg, state);
		return;
	}
	if (!err && commit)
		err = -commit;
	if (err) {
		fprintf(out, "error: key %s not changed: %s\n", req->arg,
			strerror(err));
		sk_warn("control: %s: set %s %s: failed: %s", who, req->arg,
			state, strerror(err));
		return;
	}
	fprintf(out, "ok %s %s\n", req->arg, state);
	sk_warn("control: %s: set %s %s: done", who, req->arg, state);
}

/* ---- dynamic debug ---- */

#ifdef CONFIG_DYNAMIC_DEBUG
/* As the kernel's control file: the format with its escapes. */
static void print_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
}

struct site_list {
	FILE *out;
	int n;
};

static int list_site(const struct _ddebug *dp, void *arg)
{
	static const char letters[] = "pmflt";
	struct site_list *l = arg;
	unsigned int i;

	fprintf(l->out, " %s:%u [%s]%s =", dp->filename, dp->lineno,
		dp->modname ? dp->modname : "", dp->function);
	for (i = 0; letters[i]; i++)
		if (dp->flags & (1u << i))
			fputc(letters[i], l->out);
	if (!(dp->flags & 0x1f))
		fputc('_', l->out);
	fputs(" \"", l->out);
	print_escaped(l->out, dp->format);
	fputs("\"\n", l->out);
	l->n++;
	return 0;
}

static void run_sites(FILE *out)
{
	struct site_list l = { out, 0 };

	ddebug_for_each_site(list_site, &l);
	fprintf(out, "ok %d sites\n", l.n);
}

static void run_dyndbg(FILE *out, const struct sk_control_req *req,
		       const char *who)
{
	int n = dynamic_debug_exec_queries(req->arg, NULL);

	if (n >= 0) {
		fprintf(out, "ok %d sites matched\n", n);
		sk_warn("control: %s: dyndbg '%s': %d sites matched", who,
			req->arg, n);
		return;
	}
	if (n == -EINVAL && *ddebug_last_bad())
		fprintf(out, "error: dyndbg: %s\n", ddebug_last_bad());
	else
		fprintf(out, "error: dyndbg: %s\n", strerror(-n));
	sk_warn("control: %s: dyndbg '%s': refused", who, req->arg);
}
#else
static void run_sites(FILE *out)
{
	fprintf(out, "error: this library has no dynamic debug (CONFIG_DYNAMIC_DEBUG=n)\n");
}

static void run_dyndbg(FILE *out, const struct sk_control_req *req,
		       const char *who)
{
	(void)req;
	(void)who;
	run_sites(out);
}
#endif

void sk_control_run(FILE *out, const struct sk_control_req *req,
		    const char *who)
{
	switch (req->op) {
	case SK_CONTROL_KEYS:
		run_keys(out);
		break;
	case SK_CONTROL_SITES:
		run_sites(out);
		break;
	case SK_CONTROL_SET:
		run_set(out, req, who);
		break;
	case SK_CONTROL_DYNDBG:
		run_dyndbg(out, req, who);
		break;
	}
}
