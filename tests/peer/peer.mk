# kvm-unit-tests' x86 tests under Vertigo, `make peer-kut KUT_DIR=...`:
# Bochs boots of the tests as multiboot domains (tests/peer/kvm-unit-tests,
# docs/conformance.md). Not part of `make test`: it needs a kvm-unit-tests
# tree the user built; KUT_ARGS passes the runner's options (--tests ...).
.PHONY: peer-kut
peer-kut: hv $(BUILD)/vertigo
	$(Q)if [ -z "$(KUT_DIR)" ]; then \
	    echo "peer-kut: set KUT_DIR to a kvm-unit-tests tree built with ./configure && make (docs/conformance.md)" >&2; \
	    exit 2; fi
	$(Q)BUILD=$(BUILD) ./tests/peer/kvm-unit-tests "$(KUT_DIR)" $(KUT_ARGS)
