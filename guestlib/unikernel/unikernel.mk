# The unikernel runtime (guestlib/unikernel/) and its test programs: ELF
# images Vertigo boots as unikernel domains (dom.N=unikernel:MODULE, see
# include/vertigo/unikernel.h and docs/unikernel.md).
#
#   make unikernel      newlib (once), the runtime and every image in UK_PROGS
#
# newlib's libc.a and libm.a are built from the tarball of Debian's
# newlib-source package into $(UK_NEWLIB) with the host gcc as a
# freestanding compiler; make rebuilds them only when the tarball or the
# build script changes.

UK_DIR        := $(BUILD)/unikernel
UK_NEWLIB     := $(UK_DIR)/newlib
UK_NEWLIB_SRC := /usr/src/newlib
UK_LIBC       := $(UK_NEWLIB)/lib/libc.a
UK_PROGS      := ukloop ukfault ukspin
UK_IMAGES     := $(patsubst %,$(UK_DIR)/%.elf,$(UK_PROGS))

# Code of the domain: 64-bit, not position-independent, no red zone (a
# trap taken at CPL 0 pushes onto the interrupted stack), no host headers:
# newlib's and gcc's own. The runtime provides clock_gettime with
# CLOCK_MONOTONIC, which newlib's <time.h> declares only when the system
# says so (as RTEMS's features do).
UK_FEATURES := -D_POSIX_TIMERS=1 -D_POSIX_MONOTONIC_CLOCK=200112L
UK_CODEGEN := -O2 -g -ffreestanding -fno-pic -fno-pie -fno-stack-protector -mno-red-zone \
              -mcmodel=small -fcf-protection=none -fno-asynchronous-unwind-tables
UK_CFLAGS  := -std=gnu11 $(UK_CODEGEN) $(WARNINGS) -nostdinc -isystem $(UK_NEWLIB)/include \
              -isystem $(shell $(HV_CC) -print-file-name=include) $(UK_FEATURES) -I. -Iinclude -MMD -MP
# The CPL-0 side never touches the program's SSE registers.
UK_KERNEL_CFLAGS := $(UK_CFLAGS) -mgeneral-regs-only
UK_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
              -Wl,-z,noexecstack -T guestlib/unikernel/uk.ld

UK_KERNEL_SRCS := crt0.S uk_start.c uk_desc.c uk_paging.c uk_trap.c uk_syscall.c \
                  uk_console.c uk_end.c uk_probe.c
UK_USER_SRCS   := uk_main.c uk_libc.c uk_heap.c uk_time.c uk_args.c
UK_RT_OBJS     := $(patsubst %,$(UK_DIR)/rt/%.o,$(UK_KERNEL_SRCS) $(UK_USER_SRCS))

.PHONY: unikernel
unikernel: $(UK_IMAGES)
# Objects are kept (make would delete them as intermediates of the pattern
# rules and recompile them at the next change).
.SECONDARY: $(UK_RT_OBJS) $(patsubst %,$(UK_DIR)/prog/%.c.o,$(UK_PROGS) ukhostile uksession)
all: unikernel

$(UK_LIBC): guestlib/unikernel/build-newlib $(wildcard $(UK_NEWLIB_SRC)/newlib-*.tar.*)
	$(Q)echo "newlib: building libc.a and libm.a into $(UK_NEWLIB) (about a minute or two)"
	$(Q)./guestlib/unikernel/build-newlib $(UK_NEWLIB_SRC) $(UK_NEWLIB)

$(UK_DIR)/rt/%.S.o: guestlib/unikernel/%.S
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(UK_KERNEL_CFLAGS) -D__ASSEMBLY__ -c $< -o $@

$(patsubst %,$(UK_DIR)/rt/%.o,$(filter %.c,$(UK_KERNEL_SRCS))): $(UK_DIR)/rt/%.c.o: \
		guestlib/unikernel/%.c | $(UK_LIBC)
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(UK_KERNEL_CFLAGS) -c $< -o $@

$(patsubst %,$(UK_DIR)/rt/%.o,$(UK_USER_SRCS)): $(UK_DIR)/rt/%.c.o: \
		guestlib/unikernel/%.c | $(UK_LIBC)
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(UK_CFLAGS) -c $< -o $@

$(UK_DIR)/prog/%.c.o: guestlib/unikernel/tests/%.c | $(UK_LIBC)
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(UK_CFLAGS) -c $< -o $@

# An image: the runtime, the program, newlib; checked against the boot ABI.
$(UK_DIR)/%.elf: $(UK_DIR)/prog/%.c.o $(UK_RT_OBJS) $(UK_LIBC) guestlib/unikernel/uk.ld \
		guestlib/unikernel/check-image
	$(Q)$(HV_CC) $(UK_LDFLAGS) $(UK_RT_OBJS) $< $(filter-out $<,$(filter $(UK_DIR)/prog/%,$^)) \
	    -L$(UK_NEWLIB)/lib -Wl,--start-group -lc -lm -lgcc -Wl,--end-group -o $@
	$(Q)./guestlib/unikernel/check-image --quiet $@ || { rm -f $@; exit 1; }

# ukfault's hostile and session modes are files of their own.
$(UK_DIR)/ukfault.elf: $(UK_DIR)/prog/ukhostile.c.o $(UK_DIR)/prog/uksession.c.o

# The portable parts, tested on the host.
UK_PORTABLE := guestlib/unikernel/uk_heap.c guestlib/unikernel/uk_time.c guestlib/unikernel/uk_args.c
UNIT_TESTS += unikernel_rt
unit_unikernel_rt_SRCS := tests/unit/test_unikernel_rt.c $(UK_PORTABLE)
HEADERS_HOST += $(UK_PORTABLE:.c=.h)

# The image checks as a unit test (run-tests runs $(BUILD)/unit/*): every
# image, and spoiled copies the check must refuse.
UK_CHECK_UNIT := $(BUILD)/unit/unikernel_images
$(UK_CHECK_UNIT): $(UK_IMAGES) guestlib/unikernel/check-image
	@mkdir -p $(dir $@)
	$(Q)printf '#!/bin/sh\nexec ./guestlib/unikernel/check-image --self-test %s\n' \
	    "$(UK_IMAGES)" > $@ && chmod +x $@
unit test: $(UK_CHECK_UNIT)

# Each of the runtime's headers compiles on its own with the domain's flags.
UK_HEADERS := $(wildcard guestlib/unikernel/*.h)
check-headers: $(patsubst %,$(UK_DIR)/hdr/%.ok,$(UK_HEADERS))
$(UK_DIR)/hdr/%.ok: % | $(UK_LIBC)
	@mkdir -p $(dir $@)
	$(Q)echo '#include "$<"' | $(HV_CC) $(filter-out -MMD -MP,$(UK_KERNEL_CFLAGS)) -x c \
	    -fsyntax-only - && touch $@
