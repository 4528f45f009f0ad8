# The manual pages and `make install`.
#
#   $(MAN_DIR)/man1/vertigo.1, vertigo-CMD.1   made by host-tools/mkman from
#                                   `vertigo --help` and each command's --help
#   $(MAN_DIR)/man3/vertigo_counters.3         from docs/vertigo_counters.3.md
#   make install [PREFIX=/usr/local] [DESTDIR=]  the `vertigo` command and its
#                                   runner (bin/), the pages (share/man/), the
#                                   guest counter library as the guest SDK has
#                                   it (include/, lib/, lib/pkgconfig/: the
#                                   .pc file finds its directories from its
#                                   own place)
MAN_DIR   := $(BUILD)/man
MAN_STAMP := $(MAN_DIR)/.made
PREFIX    ?= /usr/local

$(MAN_STAMP): $(BUILD)/vertigo host-tools/mkman host-tools/vertigo-run docs/vertigo_counters.3.md
	$(Q)rm -rf $(MAN_DIR)
	$(Q)./host-tools/mkman all $(BUILD)/vertigo $(MAN_DIR) docs/vertigo_counters.3.md
	$(Q)touch $@

.PHONY: man install
man: $(MAN_STAMP)
tools: $(MAN_STAMP)

install: $(BUILD)/vertigo $(MAN_STAMP) $(CTR_STAMP)
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	$(Q)install -m 755 $(BUILD)/vertigo host-tools/vertigo-run $(DESTDIR)$(PREFIX)/bin/
	$(Q)install -m 644 $(MAN_DIR)/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	$(Q)install -m 644 $(MAN_DIR)/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	$(Q)cp -R $(CTR_SDK)/include/. $(DESTDIR)$(PREFIX)/include/
	$(Q)cp -R $(CTR_SDK)/lib/. $(DESTDIR)$(PREFIX)/lib/
