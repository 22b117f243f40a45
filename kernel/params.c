// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The boot command line of the process: where it comes from, the objects
 * whose early_param() and __setup() handlers it reaches, when it is
 * applied to them, and fork().  How a line is split into words and run
 * through one object's entries is kernel/params_cmdline.c's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include <linux/init.h>
#include <statickeys/cmdline.h>

#include "object_hooks.h"
#include "params.h"
#include "params_internal.h"
#include "../lib/lifecycle.h"

/*
 * Copies of the words handed to an object's handlers.  Handlers may keep
 * the pointers (kernel __setup() handlers do), so a copy lives as long as
 * the object that received it.
 */
struct sk_strings {
	struct sk_strings *next;
	char buf[];
};

/*
 * Locking.  The lock order is written in Documentation/static-keys.rst
 * ("Lock order"); here is why the two locks of this file sit where they do.
 *
 * glibc holds its loader lock in dlopen()/dlclose() while it runs
 * constructors and destructors, which is where objects register and
 * unregister: so registration may take sk_params_lock, never
 * sk_apply_lock.  sk_params_lock guards the lists and counters only and
 * is never held while calling anything else (no handler, no loader call,
 * no core call; only fork()'s handler takes the innermost deferred-work
 * lock after it), so it cannot be part of a cycle.
 *
 * sk_apply_lock serialises statickeys_parse_cmdline(): two command lines
 * never interleave.  It is held while handlers run and while objects are
 * pinned with dlopen(RTLD_NOLOAD), both of which take the loader's lock,
 * hence its place before it; nothing that may hold the loader's lock
 * (constructors, destructors, registration) ever takes it.
 *
 * An object that registers applies the current line to itself, holding
 * no lock, and again if statickeys_parse_cmdline() installed a newer line
 * meanwhile (that call skips objects mid-registration): the newest line is
 * always the last one its handlers see.  statickeys_parse_cmdline() keeps
 * an object mapped while its handlers run by pinning it (the main program
 * needs no pin), then checks that the pinned object is still the one that
 * registered.  Handlers may thus dlopen() and dlclose(), even their own
 * object: its destructor runs when the pin is dropped.
 */
static pthread_mutex_t sk_apply_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t sk_params_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sk_cmdline *sk_cmdline;	/* NULL: the empty line */
static unsigned long sk_cmdline_gen;	/* bumped by each new line */
static bool sk_env_read;
static struct sk_object *sk_objects;	/* in registration order */
static unsigned long sk_last_id;
static __thread bool sk_fork_took_apply;	/* by this thread's fork() */

/*
 * Per thread: sk_handlers counts the handler runs this thread is inside
 * (statickeys_parse_cmdline() refuses there: -EDEADLK), sk_loader the
 * registrations (the loader's lock may be held), sk_apply_owner says this
 * thread holds sk_apply_lock.  &sk_self identifies the thread, also in a
 * forked child.
 */
static __thread unsigned int sk_handlers, sk_loader;
static __thread bool sk_apply_owner;
static __thread char sk_self;

static void sk_lock(void)
{
	pthread_mutex_lock(&sk_params_lock);
}

static void sk_unlock(void)
{
	pthread_mutex_unlock(&sk_params_lock);
}

/*
 * A line stays alive while a thread applies or lists it, after a newer one
 * replaced it.  Both under sk_params_lock.  Apart from its words' claimed
 * flags (set with atomic stores), a line never changes once built.
 */
static struct sk_cmdline *sk_cmdline_get(void)
{
	if (sk_cmdline)
		sk_cmdline->refs++;
	return sk_cmdline;
}

static void sk_cmdline_put(struct sk_cmdline *cl)
{
	if (cl && !--cl->refs)
		sk_cmdline_free(cl);
}

/* A buffer that lives until @obj is unregistered. */
static char *sk_object_strings(struct sk_object *obj, size_t size)
{
	struct sk_strings *s = malloc(offsetof(struct sk_strings, buf) + size);

	if (!s)
		return NULL;
	sk_lock();
	s->next = obj->strings;
	obj->strings = s;
	sk_unlock();
	return s->buf;
}
/*
 * Run @cl through @obj's entries (sk_cmdline_run()), on copies of the words
 * that live as long as @obj.  Called with no lock held, by the one thread
 * that may run @obj's handlers now (see struct sk_object).
 */
static void sk_apply_object(struct sk_object *obj, struct sk_cmdline *cl)
{
	char *copies;

	if (!cl || !cl->nr_words || sk_first(obj) >= sk_end(obj))
		return;
	copies = sk_object_strings(obj, 2 * cl->lines_len);
	if (!copies) {
		sk_report(obj->name, "out of memory, command line not applied");
		return;
	}
	sk_handlers++;
	sk_cmdline_run(obj, cl, copies);
	sk_handlers--;
}

/*
 * The environment's command line, once.  secure_getenv(): a set-user-ID
 * program does not let its caller flip its keys.  Under sk_params_lock.
 */
static void sk_read_env(void)
{
	const char *env;

	if (sk_env_read)
		return;
	sk_env_read = true;
	env = secure_getenv(STATICKEYS_CMDLINE_ENV);
	if (env && sk_cmdline_build(&sk_cmdline, env))
		sk_report(STATICKEYS_CMDLINE_ENV,
			  "out of memory, command line ignored");
}

/* ---- objects ---- */

static void sk_object_free(struct sk_object *obj)
{
	struct sk_strings *s;

	while ((s = obj->strings)) {
		obj->strings = s->next;
		free(s);
	}
	free(obj->pin);
	free(obj);
}

/* Under sk_params_lock: the caller no longer touches @obj. */
static void sk_object_put(struct sk_object *obj)
{
	if (!--obj->users && obj->dead)
		sk_object_free(obj);
}

/*
 * The loader's base address and name of the object holding @addr; false if
 * the loader does not know it (a static program).  Plain dladdr(), which
 * glibc and musl both have (glibc's dladdr1(RTLD_DL_LINKMAP) is not in
 * musl); it takes the loader's lock.
 */
static bool sk_loaded_object(const void *addr, Dl_info *info)
{
	return dladdr(addr, info) && info->dli_fname;
}

/* Whether @info and the object holding @addr are one object. */
static bool sk_same_object(const Dl_info *info, const void *addr)
{
	Dl_info other;

	return sk_loaded_object(addr, &other) &&
	       other.dli_fbase == info->dli_fbase;
}

/*
 * What keeps @start's object mapped: NULL for the main program (the object
 * holding the entry point, AT_ENTRY), which is never unloaded, and for
 * this library, whose code is running anyway; else its path as the loader
 * knows it, which dlopen(RTLD_NOLOAD) finds without opening a file.  Called
 * before any lock of ours is taken: dladdr() takes the loader's lock.  An
 * address the loader does not know (a static program) counts as the main
 * program.
 */
static int sk_pin_name(const void *start, char **pin)
{
	Dl_info obj;

	*pin = NULL;
	if (!sk_loaded_object(start, &obj) || !obj.dli_fname[0] ||
	    sk_same_object(&obj, (const void *)getauxval(AT_ENTRY)) ||
	    sk_same_object(&obj, (const void *)sk_pin_name))
		return 0;
	*pin = strdup(obj.dli_fname);
	return *pin ? 0 : -ENOMEM;
}

static struct sk_object *sk_object_new(const struct obs_kernel_param *start,
				       const struct obs_kernel_param *stop,
				       const char *objname)
{
	size_t len = objname ? strlen(objname) : 0;
	struct sk_object *obj;
	char *pin;

	if (sk_pin_name(start, &pin))
		return NULL;
	obj = calloc(1, offsetof(struct sk_object, name) + len + 1);
	if (!obj) {
		free(pin);
		return NULL;
	}
	obj->start = start;
	obj->stop = stop;
	obj->pin = pin;
	if (len)
		memcpy(obj->name, objname, len);
	return obj;
}

static void sk_object_append(struct sk_object *obj)
{
	struct sk_object **pp = &sk_objects;

	while (*pp)
		pp = &(*pp)->next;
	*pp = obj;
}

/* ---- the core's interface (kernel/params.h) ---- */

/*
 * Called from the object's constructor: the loader's lock may be held, so
 * sk_apply_lock is out of reach.  The object applies the current line to
 * itself, and the newer one if a statickeys_parse_cmdline() (which skips
 * it meanwhile) installed one, until the line it applied is the newest.
 */
void __sk_params_register_object(const struct obs_kernel_param *start,
				 const struct obs_kernel_param *stop,
				 const char *objname)
{
	struct sk_object *obj;
	struct sk_cmdline *cl;
	unsigned long gen;
	int cancel;

	/* Inside the loader: a cancellation must wait until dlopen() returns. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	sk_loader++;
	obj = sk_object_new(start, stop, objname);
	sk_lock();
	sk_read_env();
	if (!obj) {
		sk_unlock();
		sk_report(objname, "out of memory, command line not applied");
		sk_loader--;
		pthread_setcancelstate(cancel, NULL);
		return;
	}
	obj->id = ++sk_last_id;
	obj->registering = true;
	obj->owner = &sk_self;
	obj->users = 1;
	sk_object_append(obj);
	do {
		cl = sk_cmdline_get();
		gen = obj->applied = sk_cmdline_gen;
		sk_unlock();
		sk_apply_object(obj, cl);
		sk_lock();
		sk_cmdline_put(cl);
	} while (gen != sk_cmdline_gen && !obj->dead);
	obj->registering = false;
	sk_object_put(obj);
	sk_unlock();
	sk_loader--;
	pthread_setcancelstate(cancel, NULL);
}

/*
 * From the object's destructor (the loader's lock may be held).  An object
 * whose handlers a thread still runs (a handler that unregisters by hand,
 * or an exit() while a line is applied) is unlinked and emptied at once
 * and freed by that thread.
 */
void __sk_params_unregister_object(const struct obs_kernel_param *start)
{
	struct sk_object **pp, *obj;

	sk_loader++;
	sk_lock();
	for (pp = &sk_objects; (obj = *pp); pp = &obj->next)
		if (obj->start == start)
			break;
	if (obj) {
		*pp = obj->next;
		obj->dead = true;
		__atomic_store_n(&obj->start, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&obj->stop, NULL, __ATOMIC_RELEASE);
		if (!obj->users)
			sk_object_free(obj);
	}
	sk_unlock();
	sk_loader--;
}

/* The object's parameters, told by kernel/object.c with no lock held. */
static void params_object_registered(const struct statickeys_object *d,
				     const char *name)
{
	if (d->param_start != d->param_stop)
		__sk_params_register_object(d->param_start, d->param_stop,
					    name);
}

static void params_object_unregistered(const struct statickeys_object *d)
{
	if (d->param_start != d->param_stop)
		__sk_params_unregister_object(d->param_start);
}

SK_OBJECT_HOOK(params_object_hook) = {
	.order = SK_HOOK_FIRST,
	.registered = params_object_registered,
	.unregistered = params_object_unregistered,
};

/* ---- applying a command line ---- */

/*
 * The next object statickeys_parse_cmdline() must apply generation @gen to:
 * registered before it started (id <= @max_id), after @last_id, not
 * registering, not served yet.  Returned with a user reference, under
 * sk_params_lock.
 */
static struct sk_object *sk_next_object(unsigned long last_id,
					unsigned long max_id, unsigned long gen)
{
	struct sk_object *obj;

	for (obj = sk_objects; obj && obj->id <= max_id; obj = obj->next) {
		if (obj->id <= last_id || obj->registering ||
		    obj->applied == gen)
			continue;
		obj->users++;
		return obj;
	}
	return NULL;
}

/*
 * Apply @cl to @obj, keeping it mapped meanwhile: a dlopen(RTLD_NOLOAD) of
 * its path, with no lock of ours held (the loader's lock comes first), then
 * a check that it did not unregister before the pin took hold (then the
 * pin, if any, is on an unrelated object of the same path, or on the
 * same object while its destructor is pending).
 *
 * Drops the caller's reference on @obj, under sk_params_lock and before
 * the pin: whoever unloads the object next takes that lock in its
 * destructor, so the handlers' stores come before the unloading (and
 * before the constructor of an object mapped at the same address later)
 * in the order of our own lock, not only in the loader's, which
 * ThreadSanitizer does not see.
 */
static void sk_apply_pinned(struct sk_object *obj, struct sk_cmdline *cl,
			    unsigned long gen)
{
	void *pin = NULL;
	bool gone = false;

	if (obj->pin) {
		pin = dlopen(obj->pin, RTLD_NOLOAD | RTLD_LAZY);
		gone = !pin;
	}
	sk_lock();
	gone = gone || obj->dead || obj->registering;
	if (!gone)
		obj->applied = gen;
	sk_unlock();
	if (!gone)
		sk_apply_object(obj, cl);
	sk_lock();
	sk_object_put(obj);
	sk_unlock();
	if (pin)
		dlclose(pin);
}

/* The new line, installed: apply it to every object registered now. */
static void sk_apply_all(struct sk_cmdline *cl, unsigned long gen,
			 unsigned long max_id)
{
	unsigned long last_id = 0;
	struct sk_object *obj;

	for (;;) {
		sk_lock();
		obj = sk_next_object(last_id, max_id, gen);
		sk_unlock();
		if (!obj)
			break;
		last_id = obj->id;
		sk_apply_pinned(obj, cl, gen);
	}
}

/* ---- fork() (lib/lifecycle.c runs these) ---- */

/*
 * The two locks sit on either side of the core's in the lock order, so
 * they are two entries of lib/lifecycle.c: sk_apply_lock at SK_LC_APPLY,
 * above jump_label_mutex, sk_params_lock at SK_LC_PARAMS, below it.
 * Prepare takes them top-down, parent and child release them bottom-up:
 * the child thus inherits a consistent state and no lock held by a thread
 * that does not exist in it.
 *
 * sk_apply_lock is skipped when this thread holds it (fork() from a
 * handler) or may hold the loader's lock (fork() from a handler run at
 * registration): waiting for it there would invert the order.  A thread
 * that forks holding jump_label_mutex (inside a key change, or its own
 * jump_label_lock() section) only tries it; held by another thread, it
 * starts afresh in the child as when skipped.  The core's
 * sk_lock_is_mine() is weak here: the parser tests build this file
 * without the core, and without the core no thread holds its lock.
 */
extern bool sk_lock_is_mine(void) __attribute__((weak, visibility("hidden")));

static void sk_fork_prepare_apply(void)
{
	bool (*volatile is_mine)(void) = sk_lock_is_mine;
	bool core_locked = is_mine && is_mine();

	if (sk_apply_owner || sk_loader)
		return;
	if (!core_locked)
		pthread_mutex_lock(&sk_apply_lock);
	else if (pthread_mutex_trylock(&sk_apply_lock))
		return;
	sk_fork_took_apply = true;
}

static void sk_fork_parent_apply(void)
{
	if (sk_fork_took_apply) {
		sk_fork_took_apply = false;
		pthread_mutex_unlock(&sk_apply_lock);
	}
}

/*
 * Only the forking thread lives on in the child, and it holds what
 * prepare took.  sk_apply_lock stays held if that thread was applying a
 * line (it goes on with it); if another thread held it (prepare skipped
 * it), it starts afresh.
 */
static void sk_fork_child_apply(void)
{
	if (sk_fork_took_apply)
		pthread_mutex_unlock(&sk_apply_lock);
	else if (!sk_apply_owner)
		pthread_mutex_init(&sk_apply_lock, NULL);
	sk_fork_took_apply = false;
}

/*
 * sk_params_lock is innermost but for the deferred-work lock: never held
 * while another lock is awaited, so whoever holds it lets go soon, even
 * when this thread holds jump_label_mutex.
 */
static void sk_fork_prepare_objects(void)
{
	sk_lock();
}

static void sk_fork_parent_objects(void)
{
	sk_unlock();
}

/*
 * Registrations that other threads were doing are over in the child:
 * their objects take the next line like any other.  References those
 * threads held are leaked, never freed twice.
 */
static void sk_fork_child_objects(void)
{
	struct sk_object *obj;

	for (obj = sk_objects; obj; obj = obj->next) {
		if (obj->registering && obj->owner != &sk_self) {
			obj->registering = false;
			obj->applied = 0;
		}
	}
	sk_unlock();
}

SK_LIFECYCLE(params_apply, SK_LC_APPLY, sk_fork_prepare_apply,
	     sk_fork_parent_apply, sk_fork_child_apply);
SK_LIFECYCLE(params_objects, SK_LC_PARAMS, sk_fork_prepare_objects,
	     sk_fork_parent_objects, sk_fork_child_objects);

/* ---- the exported API (include/statickeys/cmdline.h) ---- */

SK_EXPORT int statickeys_parse_cmdline(const char *cmdline)
{
	struct sk_cmdline *cl;
	unsigned long gen, max_id;
	int ret, cancel;

	if (!cmdline)
		return -EINVAL;
	if (sk_handlers)
		return -EDEADLK;
	ret = sk_cmdline_build(&cl, cmdline);
	if (ret)
		return ret;
	/* Handlers change keys: no cancellation inside (its unlock is one). */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	pthread_mutex_lock(&sk_apply_lock);
	sk_apply_owner = true;
	sk_lock();
	sk_env_read = true;	/* the program's line replaces the env's */
	sk_cmdline_put(sk_cmdline);
	sk_cmdline = cl;
	cl->refs++;		/* ours, while we apply it */
	gen = ++sk_cmdline_gen;
	max_id = sk_last_id;
	sk_unlock();
	sk_apply_all(cl, gen, max_id);
	sk_lock();
	sk_cmdline_put(cl);
	sk_unlock();
	sk_apply_owner = false;
	pthread_mutex_unlock(&sk_apply_lock);
	pthread_setcancelstate(cancel, NULL);
	return 0;
}

/* The current line, with a reference, or NULL for an empty one. */
static struct sk_cmdline *sk_current(void)
{
	struct sk_cmdline *cl;

	sk_lock();
	sk_read_env();
	cl = sk_cmdline_get();
	sk_unlock();
	return cl;
}

static void sk_release(struct sk_cmdline *cl)
{
	sk_lock();
	sk_cmdline_put(cl);
	sk_unlock();
}

SK_EXPORT size_t statickeys_cmdline_unknown(void (*fn)(const char *, void *),
					    void *arg)
{
	struct sk_cmdline *cl = sk_current();
	size_t i, n = 0;

	for (i = 0; cl && i < cl->nr_words; i++) {
		if (__atomic_load_n(&cl->words[i].claimed, __ATOMIC_RELAXED))
			continue;
		n++;
		if (fn)
			fn(cl->lines + cl->words[i].off, arg);
	}
	sk_release(cl);
	return n;
}

SK_EXPORT size_t statickeys_cmdline(char *buf, size_t size)
{
	struct sk_cmdline *cl = sk_current();
	size_t len = cl ? cl->text_len : 0, n;

	if (size) {
		n = len < size ? len : size - 1;
		if (n)
			memcpy(buf, cl->text, n);
		buf[n] = '\0';
	}
	sk_release(cl);
	return len;
}
