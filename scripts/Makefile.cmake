# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The CMake package: make install puts statickeysConfig.cmake and
# statickeysConfigVersion.cmake in $(LIBDIR)/cmake/statickeys, for
# find_package(statickeys CONFIG).  Written like statickeys.pc, on every
# make and replaced only when changed, from the same variables: paths
# relative to the file's own place when LIBDIR and INCLUDEDIR are under
# PREFIX, the flags of Cflags and Libs.private.

CMAKE_DIR	:= $(objtree)/cmake
CMAKE_FILES	:= $(CMAKE_DIR)/statickeysConfig.cmake $(CMAKE_DIR)/statickeysConfigVersion.cmake

# From $(LIBDIR)/cmake/statickeys up to $(PREFIX): one ".." per directory.
cmake_libsub	= $(patsubst $(PREFIX)/%,%,$(LIBDIR))
cmake_toprefix	= $(subst $(space),/,$(patsubst %,..,$(subst /, ,$(cmake_libsub)) cmake statickeys))
cmake_path	= $(if $(filter $(PREFIX)/%,$(1)),$${_statickeys_prefix}/$(patsubst $(PREFIX)/%,%,$(1)),$(1))
cmake_empty	:=
space		:= $(cmake_empty) $(cmake_empty)
cmake_sizeof_p	:= $(if $(filter i386 arm,$(BUILDARCH)),4,8)

$(CMAKE_DIR)/%.cmake: $(srctree)/scripts/cmake/%.cmake.in FORCE | $(objtree)/.dirs
	@mkdir -p $(CMAKE_DIR)
	$(Q)sed -e 's|@TOPREFIX@|$(cmake_toprefix)|' \
		-e 's|@LIBDIR@|$(call cmake_path,$(LIBDIR))|' \
		-e 's|@INCLUDEDIR@|$(call cmake_path,$(INCLUDEDIR))|' \
		-e 's|@VERSION@|$(VERSION)|' -e 's|@SOVERSION@|$(SOVERSION)|' \
		-e 's|@ARCH_CFLAGS@|$(ARCH_CFLAGS)|' \
		-e 's|@LIBS_PRIVATE@|$(SK_LIBS_PRIVATE)|' \
		-e 's|@LINK_OPTIONS@|$(subst $(space),;,$(strip $(filter-out -l%,$(SK_LIBS_PRIVATE))))|' \
		-e 's|@LINK_LIBRARIES@|$(subst $(space),;,$(patsubst -l%,%,$(filter -l%,$(SK_LIBS_PRIVATE))))|' \
		-e 's|@SIZEOF_VOID_P@|$(cmake_sizeof_p)|' \
		$< > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else \
		$(say) GEN "cmake/$(notdir $@)"; mv $@.tmp $@; fi

.PHONY: cmake install-cmake uninstall-cmake
all: cmake
cmake: $(CMAKE_FILES)
install: install-cmake
uninstall: uninstall-cmake
install-cmake: cmake
	$(Q)install -d $(DESTDIR)$(LIBDIR)/cmake/statickeys
	$(Q)install -m 644 $(CMAKE_FILES) $(DESTDIR)$(LIBDIR)/cmake/statickeys/
uninstall-cmake:
	$(Q)rm -f $(patsubst $(CMAKE_DIR)/%,$(DESTDIR)$(LIBDIR)/cmake/statickeys/%,$(CMAKE_FILES))
	$(Q)rmdir $(DESTDIR)$(LIBDIR)/cmake/statickeys $(DESTDIR)$(LIBDIR)/cmake 2>/dev/null || :

clean: clean-cmake
.PHONY: clean-cmake
clean-cmake:
	$(Q)rm -rf $(CMAKE_DIR)
