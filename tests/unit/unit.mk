# Unit tests of the portable core. Each fragment appends its own tests;
# see the unit_test_rule in the top Makefile.
HEADERS_HOST += tests/unit/unit.h
