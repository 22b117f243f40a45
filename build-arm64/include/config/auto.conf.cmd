deps_config := \
	kernel/Kconfig.kstack \
	arch/arm64/Kconfig \
	/work/wt-lead/Kconfig

/work/wt-lead/build-arm64/include/config/auto.conf: \
	$(deps_config)

ifneq "$(SRCARCH)" "arm64"
/work/wt-lead/build-arm64/include/config/auto.conf: FORCE
endif

$(deps_config): ;
