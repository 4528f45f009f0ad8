# Host harnesses that count Vertigo's code with callgrind compile it as
# vertigo.elf is: HV_CODEGEN (-O3, link-time optimisation, no red zone,
# general registers only, frame pointers, no PIE...), with hosted headers
# (VERTIGO_HOSTED) instead of -nostdinc; so are the harness and its fakes,
# so that link-time optimisation inlines across them as it does across
# vertigo.elf's files (different target flags would stop it). The link
# generates the code: HV_CODEGEN, no PIE.
BENCH_HV_CFLAGS := -std=gnu11 $(HV_CODEGEN) $(WARNINGS) -I. -Iinclude -DVERTIGO_HOSTED=1 -MMD -MP
BENCH_LDFLAGS := $(HV_CODEGEN) -no-pie

# bench_obj DIR,SRCS: the objects of SRCS under $(BUILD)/bench/DIR
bench_obj = $(patsubst %,$(BUILD)/bench/$(1)/%.o,$(2))

$(BUILD)/bench/hv-obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(BENCH_HV_CFLAGS) -c $< -o $@

# The host decoder the harnesses link for their log checks is not
# vertigo.elf's code and uses SSE2 (host-tools/logdec_fast.h): it keeps the
# vector registers.
$(BUILD)/bench/hv-obj/host-tools/%.c.o: host-tools/%.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(filter-out -mgeneral-regs-only,$(BENCH_HV_CFLAGS)) -c $< -o $@
