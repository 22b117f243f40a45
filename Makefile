# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# statickeys: the kernel's static keys as a C library.  Kernel habits:
#   make [O=dir] [ARCH=x86|i386|arm64|riscv|arm|generic|ppc64le] [CROSS_COMPILE=...] [CC=musl-gcc]
#        [V=1] [W=1|W=e] [C=1|2]
#   make defconfig | menuconfig | nconfig | olddefconfig | savedefconfig
#   make check | bench | run | install [DESTDIR= PREFIX=] | uninstall
# Run `make help` for the list.

.DEFAULT_GOAL	:= all

VERSION		:= 1.0.0
SOVERSION	:= 1

srctree		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
O		?= build
objtree		:= $(abspath $(O))

# ---- verbosity ----
# make -s prints nothing but errors (make 4 keeps the one-letter options in
# the first word of MAKEFLAGS).
ifeq ($(V),1)
Q :=
say = :
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
Q := @
say = :
else
Q := @
say = printf '  %-8s %s\n'
endif
quiet = @$(say)

# ---- architecture ----
HOSTARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
		   -e 's/^i[3-6]86$$/i386/' -e 's/riscv64/riscv/' -e 's/^armv7.*/arm/')
ARCH		?= $(HOSTARCH)
# As in the kernel, ARCH=x86_64 and ARCH=i386 name the x86 tree (its
# Kconfig tells the two apart).  BUILDARCH is the one this build is for.
SRCARCH		:= $(patsubst x86_64,x86,$(patsubst i386,x86,$(ARCH)))
BUILDARCH	:= $(patsubst x86_64,x86,$(ARCH))
# An ARCH without a patcher in arch/ is built from arch/generic, with the
# portable fallback (CONFIG_JUMP_LABEL=n): ARCH=generic on this machine, or
# any other ARCH (ppc64le below) with its cross compiler.
patcher-arches	:= x86 i386 arm64 riscv arm
ifeq ($(filter $(patcher-arches),$(BUILDARCH)),)
SRCARCH		:= generic
ifneq ($(and $(KCONFIG_FRAGMENT),$(shell grep -sx 'CONFIG_JUMP_LABEL=y' $(KCONFIG_FRAGMENT))),)
$(error ARCH=$(ARCH) has no instruction patcher: CONFIG_JUMP_LABEL=y cannot be \
built; use CONFIG_JUMP_LABEL=n (the portable fallback), or add a patcher in \
arch/<arch>/ (Documentation/static-keys.rst, Architecture))
endif
endif
# Another architecture than the machine's: Debian's cross compiler, and
# qemu-user to run what it builds, through scripts/qemu-run so that the
# program loads the cross sysroot's C library and never the host's.  An
# i386 program runs natively on an x86-64 kernel that runs 32-bit programs,
# which only running one shows (a kernel built with IA32 emulation may have
# it turned off at boot, /proc/sys/abi/vsyscall32 notwithstanding): the
# cross sysroot's loader, run as a program, is that one; elsewhere
# qemu-i386.  make check finds out with a threaded program
# (scripts/probe-runner).  An empty CROSS_COMPILE or RUNNER inherited from
# a native parent make counts as unset.
cross_arm64	:= aarch64-linux-gnu
cross_i386	:= i686-linux-gnu
cross_riscv	:= riscv64-linux-gnu
cross_arm	:= arm-linux-gnueabihf
cross_ppc64le	:= powerpc64le-linux-gnu
qemu_arm64	:= qemu-aarch64
ifeq ($(BUILDARCH)-$(HOSTARCH),i386-x86)
ia32_runs	:= $(shell /usr/$(cross_i386)/lib/ld-linux.so.2 --help >/dev/null 2>&1 && echo y)
endif
qemu_i386	:= $(if $(ia32_runs),,qemu-i386)
qemu_riscv	:= qemu-riscv64
qemu_arm	:= qemu-arm
qemu_ppc64le	:= qemu-ppc64le
ifeq ($(filter generic $(HOSTARCH),$(BUILDARCH)),)
ifeq ($(strip $(CROSS_COMPILE)),)
ifeq ($(cross_$(BUILDARCH)),)
$(error ARCH=$(ARCH): no cross compiler known for it: give CROSS_COMPILE= (and \
RUNNER= to run what it builds), or build on a machine of that architecture; \
it is built from arch/generic, without a patcher (CONFIG_JUMP_LABEL=n))
endif
CROSS_COMPILE	:= $(cross_$(BUILDARCH))-
endif
ifeq ($(strip $(RUNNER)),)
RUNNER		:= $(if $(qemu_$(BUILDARCH)),$(srctree)/scripts/qemu-run $(qemu_$(BUILDARCH)) /usr/$(cross_$(BUILDARCH)))
endif
endif

# One output directory holds one architecture.  Its objects were built for
# the ARCH its .config names: building another ARCH there would mix the two.
built_arch	:= $(shell sed -n -e 's/^CONFIG_X86_64=y$$/x86/p' -e 's/^CONFIG_X86_32=y$$/i386/p' \
		   -e 's/^CONFIG_ARM64=y$$/arm64/p' -e 's/^CONFIG_RISCV=y$$/riscv/p' \
		   -e 's/^CONFIG_ARM=y$$/arm/p' -e 's/^CONFIG_ARCH_GENERIC_NAME="\(.*\)"$$/\1/p' \
		   $(objtree)/.config 2>/dev/null)
arch_free_goals	:= clean mrproper help check check-fresh check-nodebian check-package kconfig-defaults \
		   coccicheck check-cocci check-kernel bench-cocci check-arches
ifneq ($(filter-out $(BUILDARCH),$(built_arch)),)
ifneq ($(filter-out $(arch_free_goals),$(or $(MAKECMDGOALS),all)),)
$(error $(O)/ holds an ARCH=$(built_arch) build, not ARCH=$(BUILDARCH): \
run `make O=$(O) ARCH=$(built_arch)`, build ARCH=$(BUILDARCH) in another \
directory (O=build-$(BUILDARCH)), or `make O=$(O) mrproper` first)
endif
endif

CC		:= $(CROSS_COMPILE)gcc
CXX		:= $(CROSS_COMPILE)g++
# SK_LIBC is glibc or musl (make CC=musl-gcc), from what the compiler's
# headers define; the selftests read it (selftests/lib/tap.sh and
# selftests/lib/libc.h say what differs), and the C++ tier needs it while
# this Makefile is read.  Computed once, when first used; LLVM=1's clang
# (scripts/Makefile.toolchain) builds for the same C library as gcc.
sk_hash		:= \#
SK_LIBC		= $(eval SK_LIBC := $(shell echo '$(sk_hash)include <limits.h>' | \
		  $(CC) -dM -E -x c - 2>/dev/null | grep -q __GLIBC__ && \
		  echo glibc || echo musl))$(SK_LIBC)
export SK_LIBC
AR		:= $(CROSS_COMPILE)ar
OBJDUMP		:= $(CROSS_COMPILE)objdump
NM		:= $(CROSS_COMPILE)nm
READELF		:= $(CROSS_COMPILE)readelf
SPARSE		?= sparse
KCONFIG_CONF	?= kconfig-conf
KCONFIG_MCONF	?= kconfig-mconf
KCONFIG_NCONF	?= kconfig-nconf
PKG_CONFIG	?= pkg-config

export srctree objtree SRCARCH BUILDARCH ARCH_CFLAGS ARCH CROSS_COMPILE CC CXX OBJDUMP NM READELF RUNNER Q

# ---- configuration ----
KCONFIG_CONFIG	:= $(objtree)/.config
AUTOCONF	:= $(objtree)/include/generated/autoconf.h
CONFIG_H	:= $(objtree)/include/statickeys/config.h
kconfig_env	= cd $(objtree) && srctree=$(srctree) SRCARCH=$(SRCARCH) ARCH=$(BUILDARCH) \
		  KCONFIG_CONFIG=$(KCONFIG_CONFIG) \
		  KCONFIG_AUTOHEADER=$(AUTOCONF) \
		  KCONFIG_AUTOCONFIG=$(objtree)/include/config/auto.conf

# A configuration fragment applied on top of the defaults (make check uses it).
KCONFIG_FRAGMENT ?=

config_targets	:= defconfig alldefconfig allnoconfig allyesconfig \
		   olddefconfig oldconfig menuconfig nconfig savedefconfig \
		   listnewconfig
.PHONY: $(config_targets)

# The build needs a C compiler, binutils and make, nothing else: it never
# installs packages.  Where kconfig-conf (Debian's kconfig-frontends) is
# missing, `make` takes the default configuration of $(BUILDARCH) from
# scripts/kconfig-defaults/, which kconfig-conf generated (make
# kconfig-defaults; selftests/tree/test_kconfig_defaults.sh fails when they
# differ from what it generates now).  A configuration of one's own
# (KCONFIG_FRAGMENT, the config targets) needs the tools.
KCONFIG_DEFAULTS := $(srctree)/scripts/kconfig-defaults/$(BUILDARCH)
have_kconfig	:= $(shell command -v $(KCONFIG_CONF) 2>/dev/null)
# need_tool COMMAND,WHAT,WHERE: stop, before anything is written, when
# COMMAND is not installed, saying what needs it and what provides it.
need_tool	= command -v $(1) >/dev/null 2>&1 || { \
		  echo "make: $(2) needs $(1), which is not installed: $(3)" >&2; exit 1; }
kconfig_pkg	= on Debian and Ubuntu it comes with kconfig-frontends (as root: \
		  scripts/install-deps build); elsewhere install the kconfig-frontends \
		  of your distribution, or point KCONFIG_CONF=, KCONFIG_MCONF= and \
		  KCONFIG_NCONF= at the conf, mconf and nconf of a Linux tree.  Without \
		  them, make builds the default configuration.
cc_pkg		= the build needs a C compiler, binutils and make (on Debian, as \
		  root: scripts/install-deps $(strip $(deps-groups))); CC= and CROSS_COMPILE= \
		  name another compiler.

# Every other target (the tests: make run, make check, make selftests and
# the rest) asks scripts/install-deps first for the Debian packages it
# uses: it installs what is missing (as root) or names what to install.
# Packaging builds, whose build dependencies are already there, pass
# INSTALL_DEPS=true.
INSTALL_DEPS	?= $(srctree)/scripts/install-deps
deps-groups	:= build $(if $(filter $(cross_$(BUILDARCH))-,$(CROSS_COMPILE)),$(BUILDARCH)) \
		   $(if $(findstring musl,$(CC)),musl) \
		   $(if $(C),sparse)
build-goals	:= all lib install uninstall tools install-tools uninstall-tools sparse \
		   $(config_targets) kconfig-defaults clean mrproper help deps
.PHONY: deps
deps:
	$(Q)$(INSTALL_DEPS) $(deps-groups)
ifneq ($(filter-out $(build-goals),$(MAKECMDGOALS)),)
$(objtree)/.dirs: | deps
endif

$(objtree)/.dirs:
	$(Q)$(call need_tool,$(firstword $(CC)),make,$(cc_pkg))
ifneq ($(C),)
	$(Q)$(call need_tool,$(SPARSE),make C=$(C),sparse checks the sources (on Debian \
		or Ubuntu as root: scripts/install-deps sparse).)
endif
	$(Q)mkdir -p $(objtree)/include/config $(objtree)/include/generated \
		$(objtree)/include/statickeys
	$(Q)touch $@

defconfig alldefconfig: $(objtree)/.dirs
	$(Q)$(call need_tool,$(KCONFIG_CONF),make $@,$(kconfig_pkg))
	$(Q)$(kconfig_env) $(if $(KCONFIG_FRAGMENT),KCONFIG_ALLCONFIG=$(abspath $(KCONFIG_FRAGMENT))) \
		$(KCONFIG_CONF) -s --alldefconfig $(srctree)/Kconfig
allnoconfig allyesconfig olddefconfig oldconfig listnewconfig: $(objtree)/.dirs
	$(Q)$(call need_tool,$(KCONFIG_CONF),make $@,$(kconfig_pkg))
	$(Q)$(kconfig_env) $(KCONFIG_CONF) --$@ $(srctree)/Kconfig
menuconfig: $(objtree)/.dirs
	$(Q)$(call need_tool,$(KCONFIG_MCONF),make $@,$(kconfig_pkg))
	$(Q)$(kconfig_env) $(KCONFIG_MCONF) $(srctree)/Kconfig
nconfig: $(objtree)/.dirs
	$(Q)$(call need_tool,$(KCONFIG_NCONF),make $@,$(kconfig_pkg))
	$(Q)$(kconfig_env) $(KCONFIG_NCONF) $(srctree)/Kconfig
savedefconfig: $(objtree)/.dirs
	$(Q)$(call need_tool,$(KCONFIG_CONF),make $@,$(kconfig_pkg))
	$(Q)$(kconfig_env) $(KCONFIG_CONF) --savedefconfig=$(objtree)/defconfig $(srctree)/Kconfig
	@echo "  wrote $(objtree)/defconfig"

KCONFIG_FILES	:= $(srctree)/Kconfig $(wildcard $(srctree)/*/Kconfig* \
		   $(srctree)/arch/*/Kconfig)

# `make` with no .config takes the defaults: kconfig-conf's, or without it
# the committed ones.  A fragment needs kconfig-conf.
$(KCONFIG_CONFIG): | $(objtree)/.dirs
	$(quiet) CONFIG "defaults ($(BUILDARCH))$(if $(KCONFIG_FRAGMENT)$(have_kconfig),, from scripts/kconfig-defaults)"
ifneq ($(KCONFIG_FRAGMENT)$(have_kconfig),)
	$(Q)$(call need_tool,$(KCONFIG_CONF),KCONFIG_FRAGMENT=$(KCONFIG_FRAGMENT),$(kconfig_pkg))
	$(Q)$(kconfig_env) $(if $(KCONFIG_FRAGMENT),KCONFIG_ALLCONFIG=$(abspath $(KCONFIG_FRAGMENT))) \
		$(KCONFIG_CONF) -s --alldefconfig $(srctree)/Kconfig
else
	$(Q)cp $(KCONFIG_DEFAULTS)/config $@.tmp && mv $@.tmp $@
endif

# New symbols take their defaults (as olddefconfig) instead of prompting:
# a build must never stop for input.  Without kconfig-conf only the
# committed defaults have a header to go with them.
$(AUTOCONF): $(KCONFIG_CONFIG) $(KCONFIG_FILES)
	$(quiet) SYNC "$(notdir $@)"
ifneq ($(have_kconfig),)
	$(Q)$(kconfig_env) $(KCONFIG_CONF) -s --olddefconfig $(srctree)/Kconfig
	$(Q)$(kconfig_env) $(KCONFIG_CONF) -s --silentoldconfig $(srctree)/Kconfig < /dev/null
	$(Q)touch $@
else
	$(Q)cmp -s $< $(KCONFIG_DEFAULTS)/config || { \
		echo "make: $(O)/.config is not the default configuration of ARCH=$(BUILDARCH);" \
		     "building it needs $(KCONFIG_CONF), which is not installed: $(kconfig_pkg)" >&2; \
		exit 1; }
	$(Q)cp $(KCONFIG_DEFAULTS)/autoconf.h $@.tmp && mv $@.tmp $@
endif

# The committed defaults, generated again by kconfig-conf for every ARCH.
.PHONY: kconfig-defaults
kconfig-defaults:
	$(Q)$(call need_tool,$(KCONFIG_CONF),make $@,$(kconfig_pkg))
	$(Q)KCONFIG_CONF=$(KCONFIG_CONF) $(srctree)/scripts/gen-kconfig-defaults \
		$(srctree)/scripts/kconfig-defaults

# The installed configuration: every option guarded, so that a program with
# its own Kconfig may define the same names first.  CONFIG_JUMP_LABEL also
# depends on the user's compiler: one without asm goto gets the fallback, and
# so does clang before 13, which cannot keep __jump_table from --gc-sections
# (<statickeys/sections.h>).
SK_CC_HAS_ASM_GOTO := defined(__clang__) ? __clang_major__ >= 13 : \
	(__GNUC__ > 4 || (__GNUC__ == 4 \&\& __GNUC_MINOR__ >= 5))
# It also follows this Makefile (the recipe): rewritten only when its text
# changes, so that a Makefile edit rebuilds nothing else.
$(CONFIG_H): $(AUTOCONF) $(srctree)/Makefile
	$(Q){ echo '/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */'; \
	  echo '/* The configuration libstatickeys was built with (generated). */'; \
	  echo '#ifndef _STATICKEYS_CONFIG_H'; echo '#define _STATICKEYS_CONFIG_H'; \
	  sed -n -e '/^#define CONFIG_JUMP_LABEL 1$$/{s//#ifndef CONFIG_JUMP_LABEL\n#if $(SK_CC_HAS_ASM_GOTO)\n#define CONFIG_JUMP_LABEL 1\n#endif\n#endif/p;d}' \
	    -e 's/^#define \(CONFIG_[A-Za-z0-9_]*\) \(.*\)$$/#ifndef \1\n#define \1 \2\n#endif/p' $<; \
	  echo '#endif'; } > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else \
		$(say) GEN "statickeys/config.h"; mv $@.tmp $@; fi

# ---- flags ----
ifeq ($(W),e)
WARN_EXTRA := -Werror
else ifneq ($(W),)
WARN_EXTRA := -Wextra -Wno-unused-parameter -Wshadow -Wmissing-prototypes
endif

CPPFLAGS_SK	:= -I$(objtree)/include -I$(srctree)/include \
		   -I$(srctree)/arch/$(SRCARCH)/include -include $(AUTOCONF)
# What code with sites needs on this architecture, as statickeys.pc's Cflags
# also say: on arm, gcc's section anchors make a static key's address a
# register under -fPIC/-fPIE, which asm goto cannot print as a constant
# ("invalid 'asm'"); -fdata-sections turns them off, and clang, which has
# no anchors, takes it too (-fno-section-anchors it rejects).
arch_cflags_arm	:= -fdata-sections
ARCH_CFLAGS	:= $(arch_cflags_$(BUILDARCH))
# A 64-bit off_t on 32-bit targets too: a /proc/self/mem offset is a code
# address, often above 2 GiB.
CFLAGS_SK	:= -std=gnu11 -O2 -g -Wall $(WARN_EXTRA) -fno-strict-aliasing \
		   -D_FILE_OFFSET_BITS=64 -pthread $(ARCH_CFLAGS) $(EXTRA_CFLAGS)
CFLAGS_LIB	:= $(CFLAGS_SK) -fPIC -fvisibility=hidden

# ---- the library ----
# Sites of one aligned 32-bit instruction share arch/insn32/insn32.c.
insn32-arch	:= $(filter arm64 riscv arm,$(BUILDARCH))
# The kstack consumer (kernel/kstack.c, kernel/entry.c, arch/*/entry) is a
# library of its own on top of the core, libstatickeys-kstack, built where
# the configuration has HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET (arch/*/Kconfig
# selects it where there is entry code).  Read from the .config while this
# Makefile is parsed; before the first build, from the defaults make takes.
kstack-src	:= $(srctree)/kernel/kstack.c $(srctree)/kernel/entry.c \
		   $(srctree)/kernel/entry_invoke.c \
		   $(wildcard $(srctree)/arch/$(SRCARCH)/entry/*.c)
kstack-lib	:= $(shell grep -qx 'CONFIG_HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET=y' \
		   $(firstword $(wildcard $(KCONFIG_CONFIG)) $(KCONFIG_DEFAULTS)/config) \
		   2>/dev/null && echo y)
# SIGTRAP's handler and the scan of the threads' masks serve the breakpoint
# protocol of x86 (x86-64 and i386) alone.
trap-arch	:= $(filter x86 i386,$(BUILDARCH))
lib-src		:= $(filter-out $(kstack-src) \
		   $(if $(trap-arch),,$(srctree)/kernel/trap.c $(srctree)/kernel/threads.c),\
		   $(wildcard $(srctree)/kernel/*.c)) \
		   $(wildcard $(srctree)/lib/*.c) \
		   $(wildcard $(srctree)/arch/$(SRCARCH)/kernel/*.c) \
		   $(if $(insn32-arch),$(srctree)/arch/insn32/insn32.c)
lib-obj		:= $(patsubst $(srctree)/%.c,$(objtree)/%.o,$(lib-src))
# The core library is built with link-time optimization where GCC builds
# it: its layers are files of their own (scripts/layers), and one key
# change goes through a dozen calls between them that the compiler can
# only join at link time (a query over 10000 pr_debug() sites: 22% less
# CPU, Documentation/benchmarks.rst).  One partition: the SIGTRAP
# restorer's asm names a static object of kernel/trap.c.  libstatickeys.a
# holds the optimized code, no LTO sections: a program's own LTO link
# leaves it as it is.  LTO=0 turns it off; clang and SANITIZE= builds go
# without (the sanitizers' exceptions are made per object).
LTO		?= 1
sk_cc_gcc	= $(eval sk_cc_gcc := $(shell $(CC) -dM -E -x c /dev/null \
		  2>/dev/null | grep -q __clang__ || echo y))$(sk_cc_gcc)
CFLAGS_LTO	= $(if $(filter 1,$(LTO)),$(if $(strip $(SANITIZE)),,$(if \
		  $(sk_cc_gcc),-flto -flto-partition=one)))
$(lib-obj): CFLAGS_LIB += $(CFLAGS_LTO)
# The code is generated at the link: it takes the compile's options that
# shape it again (arm's -fdata-sections, which keeps key addresses out of
# section anchors that asm goto cannot print).
CFLAGS_LTO_LINK	= -O2 $(ARCH_CFLAGS)
LIB_A		:= $(objtree)/libstatickeys.a
LIB_SO		:= $(objtree)/libstatickeys.so.$(VERSION)
LIB_SONAME	:= libstatickeys.so.$(SOVERSION)
VERSION_SCRIPT	:= $(srctree)/scripts/libstatickeys.map

kstack-obj	:= $(patsubst $(srctree)/%.c,$(objtree)/%.o,$(kstack-src))
KSTACK_A	:= $(objtree)/libstatickeys-kstack.a
KSTACK_SO	:= $(objtree)/libstatickeys-kstack.so.$(VERSION)
KSTACK_SONAME	:= libstatickeys-kstack.so.$(SOVERSION)
KSTACK_MAP	:= $(srctree)/scripts/libstatickeys-kstack.map
kstack-libs	:= $(if $(kstack-lib),$(KSTACK_A) $(KSTACK_SO) $(objtree)/libstatickeys-kstack.so \
		   $(objtree)/statickeys-kstack.pc)

# Per-file flags, kbuild style: CFLAGS_file.o := ...
-include $(wildcard $(srctree)/kernel/Makefile.flags \
		    $(srctree)/arch/$(SRCARCH)/*/Makefile.flags)

.PHONY: all lib
all: lib $(objtree)/statickeys.pc
lib: $(LIB_A) $(LIB_SO) $(objtree)/libstatickeys.so $(kstack-libs)

$(objtree)/%.o: $(srctree)/%.c $(CONFIG_H) | $(objtree)/.dirs
	$(quiet) CC "$*.o"
	@mkdir -p $(dir $@)
ifneq ($(C),)
	$(quiet) CHECK "$*.c"
	$(Q)$(SPARSE) $(SPARSE_FLAGS) $(CPPFLAGS_SK) $<
endif
	$(Q)$(CC) $(CPPFLAGS_SK) $(CFLAGS_LIB) $(CFLAGS_$(notdir $@)) -MMD -MP -c $< -o $@

# The list of objects each library is made of, rewritten only when it
# changes: a library built from another list (the core with the kstack
# objects in it, from before libstatickeys-kstack) is linked again.
$(objtree)/.lib-obj: FORCE | $(objtree)/.dirs
	$(Q)echo $(lib-obj) > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# libstatickeys.a holds one object, all of the library linked with ld -r:
# the layers above the objects (parameters, deferred keys, introspection)
# place their hooks in a section that kernel/object.c walks
# (kernel/object_hooks.h), and nothing calls them by name, so a static link
# would drop the archive members that hold them.  One member is taken
# whole whenever the program registers an object.
LIB_RELOC	:= $(objtree)/libstatickeys.o
$(LIB_RELOC): $(lib-obj) $(objtree)/.lib-obj
	$(quiet) LD "$(notdir $@)"
	$(Q)$(CC) -r -nostdlib $(if $(CFLAGS_LTO),$(CFLAGS_LTO) $(CFLAGS_LTO_LINK) \
		-flinker-output=nolto-rel) -o $@ $(lib-obj)

$(LIB_A): $(LIB_RELOC)
	$(quiet) AR "$(notdir $@)"
	$(Q)rm -f $@ && $(AR) rcs $@ $(LIB_RELOC)

$(LIB_SO): $(lib-obj) $(VERSION_SCRIPT) $(objtree)/.lib-obj
	$(quiet) LD "$(notdir $@)"
	$(Q)$(CC) -shared -pthread -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=$(VERSION_SCRIPT) -Wl,-z,noexecstack \
		-Wl,-z,now -Wl,-z,relro $(EXTRA_LDFLAGS) \
		$(if $(CFLAGS_LTO),$(CFLAGS_LTO) $(CFLAGS_LTO_LINK)) \
		-o $@ $(lib-obj) -ldl

$(objtree)/libstatickeys.so: $(LIB_SO)
	$(Q)ln -sf $(notdir $(LIB_SO)) $(objtree)/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $@

# libstatickeys-kstack: its own soname and version script, linked with
# the core, which it registers its keys and parameters with like any object.
$(KSTACK_A): $(kstack-obj)
	$(quiet) AR "$(notdir $@)"
	$(Q)rm -f $@ && $(AR) rcs $@ $(kstack-obj)

$(KSTACK_SO): $(kstack-obj) $(KSTACK_MAP) $(objtree)/libstatickeys.so
	$(quiet) LD "$(notdir $@)"
	$(Q)$(CC) -shared -pthread -Wl,-soname,$(KSTACK_SONAME) \
		-Wl,--version-script=$(KSTACK_MAP) -Wl,-z,noexecstack \
		-Wl,-z,now -Wl,-z,relro $(EXTRA_LDFLAGS) \
		-o $@ $(kstack-obj) -L$(objtree) -lstatickeys

$(objtree)/libstatickeys-kstack.so: $(KSTACK_SO)
	$(Q)ln -sf $(notdir $(KSTACK_SO)) $(objtree)/$(KSTACK_SONAME)
	$(Q)ln -sf $(KSTACK_SONAME) $@

-include $(lib-obj:.o=.d) $(kstack-obj:.o=.d)

# ---- sparse: C=1 checks what is compiled, C=2 checks every source ----
# -Wno-transparent-union: glibc's <sys/socket.h> declares the address
# arguments of the socket calls a transparent union (kernel/control.c).
SPARSE_FLAGS	?= -Wsparse-all -Wno-declaration-after-statement \
		   -Wno-non-pointer-null -Wno-decl -Wno-unknown-attribute \
		   -Wno-flexible-array-sizeof -Wno-transparent-union \
		   -D__CHECKER__ \
		   $(sparse_arch_$(BUILDARCH))
# 32-bit targets read their cross libc's headers (the build machine's are
# 64-bit only); a 12-byte struct jump_entry is fine there.
sparse_arch_x86	  := -D__x86_64__ -m64
sparse_arch_arm64 := -D__aarch64__ -m64
sparse_arch_riscv := -D__riscv -D__riscv_xlen=64 -m64
sparse_32	  := -m32 -isystem /usr/$(cross_$(BUILDARCH))/include -Wno-ptr-subtraction-blows
sparse_arch_i386  := -D__i386__ $(sparse_32)
sparse_arch_arm	  := -D__arm__ -D__ARM_PCS_VFP -D__ARM_ARCH=7 -D__ARM_ARCH_7A__ \
		     -D__thumb__ -D__thumb2__ $(sparse_32)
.PHONY: sparse
ifeq ($(C),2)
lib: sparse
endif
sparse: $(CONFIG_H)
	$(Q)status=0; for f in $(lib-src) $(if $(kstack-lib),$(kstack-src)); do \
		echo "  CHECK   $${f#$(srctree)/}"; \
		$(SPARSE) $(SPARSE_FLAGS) $(CPPFLAGS_SK) $$f || status=1; \
	done; exit $$status

# ---- pkg-config and install ----
PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
DESTDIR		?=
# What a program linking libstatickeys.a needs besides (the shared library
# brings them itself): statickeys.pc's Libs.private, and the CMake
# package's statickeys::statickeys_static (scripts/Makefile.cmake).
SK_LIBS_PRIVATE	:= -pthread -ldl

# Generated on every make and replaced only when it changed: `make` then
# `make install PREFIX=/usr LIBDIR=/usr/lib/<triplet>` (what distribution
# packaging does) must install a .pc that names those directories.
# statickeys-kstack.pc the same way, from its own .pc.in.
$(objtree)/%.pc: $(srctree)/scripts/%.pc.in FORCE | $(objtree)/.dirs
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
		-e 's|@VERSION@|$(VERSION)|' -e 's|@ARCH_CFLAGS@|$(if $(ARCH_CFLAGS), $(ARCH_CFLAGS))|' \
		-e 's|@LIBS_PRIVATE@|$(SK_LIBS_PRIVATE)|' \
		$< > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else \
		$(say) GEN "$(notdir $@)"; mv $@.tmp $@; fi

.PHONY: FORCE
FORCE:

inc_dest	= $(DESTDIR)$(INCLUDEDIR)/statickeys
pub_headers	:= $(wildcard $(srctree)/include/linux/*.h)
own_headers	:= $(wildcard $(srctree)/include/statickeys/*.h)
# asm/trap_regs.h is the library's own (kernel/trap.c), not the API's.
asm_headers	:= $(filter-out %/trap_regs.h,$(wildcard $(srctree)/arch/$(SRCARCH)/include/asm/*.h))

.PHONY: install uninstall
install: all
	$(Q)install -d $(inc_dest)/linux $(inc_dest)/statickeys $(inc_dest)/asm \
		$(DESTDIR)$(LIBDIR)/pkgconfig
	$(Q)install -m 644 $(pub_headers) $(inc_dest)/linux/
	$(Q)install -m 644 $(own_headers) $(CONFIG_H) $(inc_dest)/statickeys/
	$(Q)$(if $(asm_headers),install -m 644 $(asm_headers) $(inc_dest)/asm/,:)
	$(Q)install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libstatickeys.so
	$(Q)install -m 644 $(objtree)/statickeys.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
ifneq ($(kstack-lib),)
	$(Q)install -m 644 $(KSTACK_A) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 755 $(KSTACK_SO) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sf $(notdir $(KSTACK_SO)) $(DESTDIR)$(LIBDIR)/$(KSTACK_SONAME)
	$(Q)ln -sf $(KSTACK_SONAME) $(DESTDIR)$(LIBDIR)/libstatickeys-kstack.so
	$(Q)install -m 644 $(objtree)/statickeys-kstack.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
endif
	$(quiet) INSTALL "$(DESTDIR)$(PREFIX)"
	$(Q)$(ldconfig)

# Into the live system as root, the dynamic linker's cache learns the new
# library now (a staged DESTDIR install leaves that to the package).
ldconfig	= $(if $(DESTDIR),:,if [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; \
		  then ldconfig; fi)

uninstall:
	$(Q)rm -rf $(inc_dest)
	$(Q)rm -f $(DESTDIR)$(LIBDIR)/libstatickeys.a $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) \
		$(DESTDIR)$(LIBDIR)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libstatickeys.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/statickeys.pc
	$(Q)rm -f $(DESTDIR)$(LIBDIR)/libstatickeys-kstack.a $(DESTDIR)$(LIBDIR)/$(notdir $(KSTACK_SO)) \
		$(DESTDIR)$(LIBDIR)/$(KSTACK_SONAME) $(DESTDIR)$(LIBDIR)/libstatickeys-kstack.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/statickeys-kstack.pc
	$(quiet) UNINSTALL "$(DESTDIR)$(PREFIX)"
	$(Q)$(ldconfig)

# ---- selftests ----
# Every selftests/<dir>/test_*.c is one TAP program linked with the shared
# library; selftests/<dir>/Makefile.inc may add objects and rules.
# The kstack tests need libstatickeys-kstack (selftests/kstack/Makefile.inc).
test-src	:= $(filter-out $(if $(kstack-lib),,$(srctree)/selftests/kstack/%),\
		   $(wildcard $(srctree)/selftests/*/test_*.c))
test-bin	:= $(patsubst $(srctree)/%.c,$(objtree)/%,$(test-src))
# Coccinelle and the source tree's own checks do not depend on the
# configuration: make check runs them once.
test-sh		:= $(filter-out $(srctree)/selftests/coccinelle/% $(srctree)/selftests/tree/% \
		   $(if $(kstack-lib),,$(srctree)/selftests/kstack/%),\
		   $(wildcard $(srctree)/selftests/*/test_*.sh))
CFLAGS_TEST	:= $(CFLAGS_SK) -fPIE -I$(srctree)/selftests/lib
LDFLAGS_TEST	:= -pie -pthread -L$(objtree) -Wl,-rpath,$(objtree)
LDLIBS_TEST	:= -lstatickeys -ldl

-include $(wildcard $(srctree)/selftests/*/Makefile.inc)

$(objtree)/selftests/%: $(srctree)/selftests/%.c $(CONFIG_H) $(objtree)/libstatickeys.so
	$(quiet) CC "selftests/$*"
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS_SK) $(CFLAGS_TEST) $(CFLAGS_$(notdir $@)) -MMD -MP $< -o $@ \
		$(LDFLAGS_TEST) $(LDFLAGS_$(notdir $@)) $(LDLIBS_TEST)

-include $(test-bin:=.d)

.PHONY: selftests run-selftests check check-one
selftests: lib $(test-bin) $(selftests-extra)

# One configuration: the tests of this O=/ARCH=/.config, with RUNNER;
# SELFTESTS_ONLY="dir..." runs only the tests of those selftests folders.
run-bin	= $(if $(SELFTESTS_ONLY),$(filter $(patsubst %,$(objtree)/selftests/%/%,$(SELFTESTS_ONLY)),$(test-bin)),$(test-bin))
run-sh	= $(if $(SELFTESTS_ONLY),$(filter $(patsubst %,$(srctree)/selftests/%/%,$(SELFTESTS_ONLY)),$(test-sh)),$(test-sh))
run-selftests: selftests
	$(Q)$(srctree)/scripts/run-tests -p "$(RUNNER)" -t "$(BUILDARCH)/$(CHECK_LABEL)" \
		$(run-bin) $(run-sh)

# Everything: both architectures, CONFIG_JUMP_LABEL=y and =n, and the
# architecture-independent suites.  Ends with "N passed, N failed".
check:
	$(Q)$(srctree)/scripts/install-deps check
	$(Q)$(srctree)/scripts/check

# The further architectures (i386, riscv, arm; generic and ppc64le, which
# have no patcher, with CONFIG_JUMP_LABEL=n only) and musl in full: every
# selftest with CONFIG_JUMP_LABEL=y and =n.  make check runs their core.
.PHONY: check-arches
check-arches:
	$(Q)$(srctree)/scripts/install-deps build arches
	$(Q)$(srctree)/scripts/check --arches

# ---- the rest ----
.PHONY: clean mrproper help
clean:
	$(Q)rm -rf $(objtree)/kernel $(objtree)/arch $(objtree)/selftests \
		$(objtree)/*.a $(objtree)/*.so* $(objtree)/*.pc $(objtree)/fuzz

mrproper:
	$(Q)rm -rf $(objtree)

# One line a target; README.md names no target that is not here
# (selftests/tree/test_docs.sh checks it).
help:
	@echo 'Configuration (kconfig-frontends, on Kconfig; make without a .config takes the defaults):'
	@echo '  defconfig        the defaults, written to $$(O)/.config'
	@echo '  menuconfig       change .config in kconfig-mconf'
	@echo '  nconfig          change .config in kconfig-nconf'
	@echo '  olddefconfig     bring an old .config up to date, new options at their defaults'
	@echo '  savedefconfig    write $$(O)/defconfig, the options that differ from the defaults'
	@echo '  kconfig-defaults regenerate scripts/kconfig-defaults/ (what make takes without kconfig-conf)'
	@echo 'Build and install:'
	@echo '  all              (default) libstatickeys.a and .so, statickeys.pc, the CMake package, statickeys-keys'
	@echo '  install          [DESTDIR= PREFIX=/usr/local LIBDIR= INCLUDEDIR= MANDIR= DOCDIR=] library, headers,'
	@echo '                   .pc, CMake package, statickeys-keys, man pages (1, 3, 7), gdb script, examples'
	@echo '  uninstall        remove what install put there'
	@echo '  clean            remove the build products of $$(O), keep its .config'
	@echo '  mrproper         remove $$(O) entirely'
	@echo 'Tests:'
	@echo '  check            every test (README: what and how long); ends "N passed, N failed, N skipped"'
	@echo '  run-selftests    the selftests of this O=/ARCH=/.config only [SELFTESTS_ONLY="dir ..."]'
	@echo '                   [CHECK_JOBS=n tests at once under prove, default the CPUs; Documentation/testing.rst]'
	@echo '  check-arches     i386, riscv, arm, generic, ppc64le and musl in full (make check runs their core)'
	@echo '  check-kernel     the Coccinelle conversion of the whole Linux 6.1 tree (long)'
	@echo '  check-vm         the selftests on Debian'"'"'s kernels under qemu-system [ARCH=x86|arm64]'
	@echo '  check-boot       Linux 6.1 as shipped and converted, booted and compared (long)'
	@echo '  check-gdb        a toggling program under gdb -batch'
	@echo '  check-valgrind   the thread tests under valgrind memcheck'
	@echo '  stress           the stress programs [STRESS_SECS=20 STRESS_COUNTS=20]'
	@echo '  check-cocci      golden tests of the semantic patches (TAP; in make check)'
	@echo '  coccicheck       the semantic patches on a tree [MODE=report|patch|context|org|series|lint M=dir J=n]'
	@echo '  check-fresh      README.md followed on a fresh Debian 12 root (root, downloads, long)'
	@echo '  check-package    debian/ built for amd64, arm64, i386, armhf, riscv64, lintian, inspected;'
	@echo '                   the native ones installed and used (root) [PACKAGE_ARCHES="amd64 i386"]'
	@echo '  check-nodebian   make, make install and a consumer on a root without dpkg, apt or kconfig-frontends (root)'
	@echo '  fuzz             the command-line parser, ELF reader and control requests under libFuzzer [FUZZTIME=60]'
	@echo '  fuzz-merge       fold new fuzzer finds into the corpora'
	@echo '  fuzz-check       a bounded fuzz run of the ELF reader and control requests [FUZZRUNS=20000]'
	@echo 'Figures:'
	@echo '  run              randomize_kstack_offset through real entry code [CMDLINE="randomize_kstack_offset=off"]'
	@echo '  bench            Documentation/benchmarks.rst'"'"'s figures'
	@echo '  bench-kstack     the kstack consumer'"'"'s cost per entry'
	@echo '  bench-cocci      whole-tree Coccinelle runs beside plain spatch'
	@echo '  ro-cost          what read-only keys cost an object, with each linker'
	@echo '  help             this list'
	@echo 'Options:           O=dir ARCH=x86|x86_64|i386|arm64|riscv|arm|generic|ppc64le CROSS_COMPILE= CC=musl-gcc'
	@echo '                   LLVM=1 LTO=0 V=1 W=1|e C=1|2 -s, check SANITIZE=address,undefined|thread'
	@echo 'What make check leaves to CI (they run when CI=true, as CI systems set it, or by their switch):'
	@echo '  check-kernel (CHECK_KERNEL=1), check-vm (CHECK_VM=1), check-arches in full (CHECK_MORE_FULL=1)'
	@echo 'and to you (never part of make check): check-boot, check-fresh, check-nodebian, check-package,'
	@echo '  check-valgrind, bench, fuzz (make check runs fuzz-check), SANITIZE= runs'

# Each scripts/Makefile.<topic> adds the targets of one topic.
-include $(sort $(wildcard $(srctree)/scripts/Makefile.*))
