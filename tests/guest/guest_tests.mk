# The guest's hostile-input tests: the user-mode hypercall fuzzer
# (tests/guest/hc_fuzz.c) and the test kernel module vertigo_probe.ko
# (tests/guest/probe/: MSR and I/O paths, and the kernel-mode hypercall
# fuzzer), both carried by the initramfs of `make guest` (the module as
# /lib/vertigo_probe.ko). Their scenarios are tests/guest/scenarios/msrio
# and hcfuzz; `make soak` runs the long fuzzing boot.
GUEST_HOSTILE_PROGS := $(GUEST_DIR)/bin/hc_fuzz
GUEST_PROBE_KMOD    := $(GUEST_DIR)/probe/vertigo_probe.ko
# A guest kernel path of known depth (tests/guest/kdeep/, scenario kdeep):
# bench-kstack's measured walks.
GUEST_KDEEP_KMOD    := $(GUEST_DIR)/kdeep/vertigo_kdeep.ko
# The SMP domains' sharing benchmark's loop (tests/guest/smp_spin.c,
# scenario smp_spin; tests/bench/bench_domains.sh).
GUEST_SMP_SPIN      := $(GUEST_DIR)/bin/smp_spin
GUEST_PROG_BINS     += $(GUEST_HOSTILE_PROGS) $(GUEST_PROBE_KMOD) $(GUEST_KDEEP_KMOD) $(GUEST_SMP_SPIN)
$(GUEST_INITRD): $(GUEST_HOSTILE_PROGS) $(GUEST_PROBE_KMOD) $(GUEST_KDEEP_KMOD) $(GUEST_SMP_SPIN)

$(GUEST_DIR)/bin/hc_fuzz: tests/guest/hostile.h

# Built out of tree like vertigo.ko (whose build installs the headers).
$(GUEST_PROBE_KMOD): tests/guest/probe/vertigo_probe.c tests/guest/probe/Kbuild \
                     tests/guest/hostile.h guestlib/vertigo_vmcall.h include/vertigo/hypercall.h \
                     $(GUEST_KMOD)
	@mkdir -p $(dir $@)
	$(Q)cp tests/guest/probe/Kbuild tests/guest/probe/vertigo_probe.c $(dir $@)
	$(Q)$(MAKE) -s -C /usr/src/linux-headers-$$(cat $(GUEST_DIR)/kernel-release) \
	    M=$(abspath $(dir $@)) VERTIGO_SRC=$(CURDIR) modules
	$(Q)strip --strip-debug $@

$(GUEST_KDEEP_KMOD): tests/guest/kdeep/vertigo_kdeep.c tests/guest/kdeep/Kbuild \
                     guestlib/vertigo_vmcall.h include/vertigo/hypercall.h $(GUEST_KMOD)
	@mkdir -p $(dir $@)
	$(Q)cp tests/guest/kdeep/Kbuild tests/guest/kdeep/vertigo_kdeep.c $(dir $@)
	$(Q)$(MAKE) -s -C /usr/src/linux-headers-$$(cat $(GUEST_DIR)/kernel-release) \
	    M=$(abspath $(dir $@)) VERTIGO_SRC=$(CURDIR) modules
	$(Q)strip --strip-debug $@
