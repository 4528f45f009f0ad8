# mbtest, the project's multiboot test kernel (tests/multiboot/): one C
# file and its entry, 32-bit and freestanding, linked at 2 MiB. Two images
# of the same code: mbtest.elf carries a multiboot header, mbtest2.elf a
# multiboot2 one. tests/e2e/multiboot.sh boots them as domains.
MB_DIR    := $(BUILD)/multiboot
MB_IMAGES := $(MB_DIR)/mbtest.elf $(MB_DIR)/mbtest2.elf
MB_CFLAGS := -std=gnu11 -m32 -O2 -ffreestanding -fno-builtin -fno-pic -fno-pie \
             -fno-stack-protector -fcf-protection=none -fno-asynchronous-unwind-tables \
             -mgeneral-regs-only $(WARNINGS) -MMD -MP
MB_LDFLAGS := -m32 -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
              -Wl,--no-warn-rwx-segments \
              -Wl,-z,noexecstack -T tests/multiboot/mbtest.ld

.PHONY: multiboot-kernels
multiboot-kernels: $(MB_IMAGES)
all: multiboot-kernels

$(MB_DIR)/mbtest.c.o: tests/multiboot/mbtest.c
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(MB_CFLAGS) -c $< -o $@

$(MB_DIR)/entry%.S.o: tests/multiboot/mbtest_entry.S
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) -m32 -DMB_VERSION=$* -c $< -o $@

$(MB_DIR)/mbtest.elf: $(MB_DIR)/entry1.S.o $(MB_DIR)/mbtest.c.o tests/multiboot/mbtest.ld
	$(Q)$(HV_CC) $(MB_LDFLAGS) $(MB_DIR)/entry1.S.o $(MB_DIR)/mbtest.c.o -o $@

$(MB_DIR)/mbtest2.elf: $(MB_DIR)/entry2.S.o $(MB_DIR)/mbtest.c.o tests/multiboot/mbtest.ld
	$(Q)$(HV_CC) $(MB_LDFLAGS) $(MB_DIR)/entry2.S.o $(MB_DIR)/mbtest.c.o -o $@
