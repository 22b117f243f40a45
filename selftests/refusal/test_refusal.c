// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Changes the library must refuse, writing nothing: a site holding a foreign
 * instruction (EILSEQ), a decrement below zero (ERANGE), a process where no
 * method can write code (EACCES); and enabling an enabled key is a no-op.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <linux/jump_label.h>
#include <statickeys/batch.h>
#include <statickeys/statickeys.h>
#include "../ro/capture.h"
#include "arch.h"
#include "tap.h"
#include "foreign.h"
#include "site.h"

DEFINE_STATIC_KEY_FALSE(rf_key);	/* three sites, one gets corrupted */
DEFINE_STATIC_KEY_FALSE(nm_key);	/* changed where nothing can write */
DEFINE_STATIC_KEY_FALSE(dec_key);	/* decremented below zero */
DEFINE_STATIC_KEY_TRUE(dec_true_key);
DEFINE_STATIC_KEY_FALSE(en_key);	/* enabled twice */
DEFINE_STATIC_KEY_FALSE(warm_key);	/* the parent's first change */
DEFINE_STATIC_KEY_FALSE(own_key);	/* another thread's refusal */

SITE(rf_a, static_branch_unlikely(&rf_key))
SITE(rf_b, static_branch_likely(&rf_key))
SITE(rf_c, static_branch_unlikely(&rf_key))
SITE(nm_site, static_branch_unlikely(&nm_key))
SITE(dec_site, static_branch_unlikely(&dec_key))
SITE(dec_true_site, static_branch_likely(&dec_true_key))
SITE(en_site, static_branch_unlikely(&en_key))
SITE(warm_site, static_branch_unlikely(&warm_key))

static int (*volatile rf_sites[])(void) = { rf_a, rf_b, rf_c };
static int (*volatile nm_fn)(void) = nm_site;

/* ---- no write method: a child whose openat() and mprotect() fail ---- */

#define AUDIT_ARCH_HERE		SK_TEST_AUDIT_ARCH
#define NR_OPEN_HERE		SK_TEST_NR_OPEN

static int block_code_writes(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_OPEN_HERE, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

struct nm_result {
	int no_seccomp;
	int err, enabled, site;
	char method[16];
	char msg[512];
};

static struct nm_result *nm;

static int nm_child(void *arg)
{
	(void)arg;
	capture_begin();	/* tmpfile() needs openat: before the filter */
	if (block_code_writes()) {
		nm->no_seccomp = errno;
		capture_end();
		return 0;
	}
	static_branch_enable(&nm_key);
	nm->err = statickeys_last_error();
	capture_end();
	snprintf(nm->msg, sizeof(nm->msg), "%s", captured);
	nm->enabled = static_key_enabled(&nm_key);
	nm->site = nm_fn();
	snprintf(nm->method, sizeof(nm->method), "%s",
		 statickeys_text_poke_method());
	return 0;
}

/* 1-2, or 3-4: @chosen says whether the method was chosen before the fork. */
static void test_no_write_method(int chosen)
{
	const char *when = chosen ? "after the method was chosen" : "first change";
	int st;

	memset(nm, 0, sizeof(*nm));
	st = tap_fork(nm_child, NULL);
	if (st == 0 && nm->no_seccomp) {
		tap_skip("seccomp filters are not available here (qemu-user refuses them)",
			 "%s, openat and mprotect blocked: refused", when);
		tap_skip("seccomp filters are not available here (qemu-user refuses them)",
			 "%s: one message", when);
		return;
	}
#ifdef CONFIG_JUMP_LABEL
	tap_ok(st == 0 && nm->err == EACCES && !nm->enabled && !nm->site,
	       "%s, openat and mprotect blocked: refused with EACCES (got %d, method %s), key and site unchanged, no crash (status %d)",
	       when, nm->err, nm->method, st);
	printf("# stderr: %s", nm->msg[0] ? nm->msg : "(nothing)\n");
	tap_ok(nm->msg[0] && strstr(nm->msg, "statickeys: "),
	       "%s: the refusal is reported on stderr", when);
#else
	tap_ok(st == 0 && nm->err == 0 && nm->enabled && nm->site,
	       "%s, openat and mprotect blocked, CONFIG_JUMP_LABEL=n: no site to write, the change succeeds (status %d)",
	       when, st);
	tap_ok(!nm->msg[0], "%s: nothing on stderr", when);
#endif
}

/* ---- a corrupted site ---- */

#ifdef CONFIG_JUMP_LABEL
static const unsigned char foreign[] = SK_TEST_FOREIGN;
#define SITE_LEN	sizeof(foreign)
#define MAX_RF		8

static int rf_sites_are(int v)
{
	unsigned int i;

	for (i = 0; i < sizeof(rf_sites) / sizeof(rf_sites[0]); i++)
		if (rf_sites[i]() != v)
			return 0;
	return 1;
}

static uintptr_t rf_addr[MAX_RF];
static unsigned char rf_bytes[MAX_RF][SITE_LEN];
static int nr_rf;

/* This program's own table: the sites of rf_key, in address order. */
static void find_rf_sites(void)
{
	struct jump_entry *e = (struct jump_entry *)(void *)__start___jump_table;
	struct jump_entry *stop = (struct jump_entry *)(void *)__stop___jump_table;

	for (; e && e < stop; e++) {
		if ((e->key & ~3UL) != (uintptr_t)&rf_key.key || nr_rf == MAX_RF)
			continue;
		rf_addr[nr_rf] = (uintptr_t)&e->code + e->code;
		memcpy(rf_bytes[nr_rf], (void *)rf_addr[nr_rf], SITE_LEN);
		nr_rf++;
	}
}

/* Write @bytes over a site the way a stray patcher would. */
static int write_code(uintptr_t addr, const unsigned char *bytes)
{
	return sk_test_write_code(addr, bytes, SITE_LEN);
}

/* Does every site hold what it held before, except @bad holding foreign? */
static int rf_bytes_unchanged(int bad)
{
	int i, ok = 1;

	for (i = 0; i < nr_rf; i++) {
		const unsigned char *want = i == bad ? foreign : rf_bytes[i];

		if (memcmp((void *)rf_addr[i], want, SITE_LEN)) {
			tap_diag("site %d at %#lx changed", i,
				 (unsigned long)rf_addr[i]);
			ok = 0;
		}
	}
	return ok;
}

/* Which of rf_sites[] holds the site at @addr: the closest start below it. */
static int site_owner(uintptr_t addr)
{
	uintptr_t best = 0;
	int i, owner = -1;

	for (i = 0; i < 3; i++) {
		uintptr_t f = (uintptr_t)rf_sites[i];

		if (f <= addr && f >= best) {
			best = f;
			owner = i;
		}
	}
	return owner;
}

/* Run every site but the corrupted one (its path is now foreign). */
static int others_off(int skip)
{
	int i;

	for (i = 0; i < 3; i++)
		if (i != skip && rf_sites[i]() != 0)
			return 0;
	return 1;
}

static void corrupt_one(int bad, const char *which)
{
	int err, en;

	if (write_code(rf_addr[bad], foreign)) {
		tap_ok(0, "%s site: could not write foreign bytes", which);
		tap_ok(0, "%s site: (skipped)", which);
		tap_ok(0, "%s site: (skipped)", which);
		return;
	}
	capture_begin();
	static_branch_enable(&rf_key);
	err = statickeys_last_error();
	capture_end();
	en = static_key_enabled(&rf_key);
	tap_ok(err == EILSEQ && !en && others_off(site_owner(rf_addr[bad])),
	       "%s site of %d corrupted: enable refused with EILSEQ (%d), key unchanged, the other sites still off",
	       which, nr_rf, err);
	tap_ok(rf_bytes_unchanged(bad),
	       "%s site corrupted: no byte of any site of the key written", which);
	tap_ok(captured_one_line("not the expected instruction"),
	       "%s site corrupted: one message on stderr", which);
	write_code(rf_addr[bad], rf_bytes[bad]);
}
#endif

static void test_corrupted_site(void)
{
#ifdef CONFIG_JUMP_LABEL
	find_rf_sites();
	if (nr_rf != 3)
		tap_diag("found %d sites of rf_key, expected 3", nr_rf);
	corrupt_one(nr_rf - 1, "last");
	corrupt_one(0, "first");
	static_branch_enable(&rf_key);
	tap_ok(!statickeys_last_error() && static_key_enabled(&rf_key) &&
	       rf_sites_are(1),
	       "bytes restored: enable works and every site takes the new path");
	static_branch_disable(&rf_key);
#else
	int i;

	for (i = 0; i < 7; i++)
		tap_skip("CONFIG_JUMP_LABEL=n: there are no sites to corrupt",
			 "corrupted site %d", i);
#endif
}

/* ---- decrement below zero ---- */

static void test_dec_below_zero(void)
{
	char want[128];
	int e1, e2;

	capture_begin();
	static_branch_dec(&dec_key);
	e1 = statickeys_last_error();
	static_branch_dec(&dec_key);
	e2 = statickeys_last_error();
	capture_end();
	tap_ok(e1 == ERANGE && e2 == ERANGE && static_key_count(&dec_key.key) == 0 &&
	       !dec_site(),
	       "decrement of a zero key, twice: ERANGE both times, count 0, site off");
	tap_ok(captured_one_line("below zero"), "it warned once");
	/*
	 * dec_key is in the program's .symtab only (no -rdynamic: dladdr()
	 * cannot name it); the warning names it all the same.
	 */
	snprintf(want, sizeof(want), "key dec_key (%p) would go below zero",
		 (void *)&dec_key);
	tap_ok(strstr(captured, want) != NULL,
	       "the warning names a key dladdr() cannot: \"%s\"", want);
	if (!strstr(captured, want))
		tap_diag("captured: %s", captured);

	capture_begin();
	static_branch_dec(&dec_true_key);
	e1 = statickeys_last_error();
	static_branch_dec(&dec_true_key);
	e2 = statickeys_last_error();
	static_branch_dec(&dec_true_key);
	capture_end();
	tap_ok(e1 == 0 && e2 == ERANGE && static_key_count(&dec_true_key.key) == 0 &&
	       !dec_true_site(),
	       "a true key: the first decrement disables it, the next is refused with ERANGE");
	/* Once per key: the first key's warning does not hide this one's. */
	tap_ok(captured_one_line("below zero"),
	       "another key's decrements below zero: its own warning, once");
}

/* ---- enable of an enabled key ---- */

static void test_enable_twice(void)
{
	struct statickeys_stats a, b;

	static_branch_enable(&en_key);
	statickeys_get_stats(&a);
	capture_begin();
	static_branch_enable(&en_key);
	capture_end();
	statickeys_get_stats(&b);
	tap_ok(!statickeys_last_error() && static_key_count(&en_key.key) == 1 &&
	       en_site() && a.updates == b.updates &&
	       a.sites_written == b.sites_written && !captured[0],
	       "static_branch_enable() of an enabled key: count stays 1, nothing written, nothing said");
	static_branch_disable(&en_key);
	statickeys_get_stats(&a);
	static_branch_disable(&en_key);
	statickeys_get_stats(&b);
	tap_ok(!statickeys_last_error() && static_key_count(&en_key.key) == 0 &&
	       !en_site() && a.updates == b.updates &&
	       a.sites_written == b.sites_written,
	       "static_branch_disable() of a disabled key: no-op");
}

/* ---- the error is the thread's own ---- */

static void *refuse_in_thread(void *arg)
{
	int *seen = arg;

	capture_begin();
	static_branch_dec(&own_key);	/* below zero: ERANGE */
	capture_end();
	seen[0] = statickeys_last_error();
	statickeys_batch_begin();
	static_branch_dec(&own_key);
	seen[1] = statickeys_last_error();	/* inside its batch */
	statickeys_batch_commit();
	seen[2] = statickeys_last_error();	/* the commit's: 0 */
	return NULL;
}

static void test_error_per_thread(void)
{
	int seen[3] = { -1, -1, -1 }, mine;
	pthread_t t;

	static_branch_enable(&warm_key);	/* this thread's last: 0 */
	if (pthread_create(&t, NULL, refuse_in_thread, seen)) {
		tap_skip("pthread_create failed", "the error is the thread's own");
		return;
	}
	pthread_join(t, NULL);
	mine = statickeys_last_error();
	tap_ok(seen[0] == ERANGE && seen[1] == ERANGE && seen[2] == 0 && mine == 0,
	       "statickeys_last_error() is each thread's: another thread's refusal (%d, %d in its batch, %d after its commit) leaves this one's %d",
	       seen[0], seen[1], seen[2], mine);
}

int main(void)
{
	tap_plan(4 + 7 + 5 + 2 + 1 + 1);
	nm = mmap(NULL, sizeof(*nm), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	/* Before this process changed any key: the method is still unset. */
	test_no_write_method(0);
	static_branch_enable(&warm_key);
	tap_ok(!statickeys_last_error() && warm_site(),
	       "a first change in this process works (method %s)",
	       statickeys_text_poke_method());
	test_no_write_method(1);

	test_corrupted_site();
	test_dec_below_zero();
	test_enable_twice();
	test_error_per_thread();
	return tap_exit();
}
