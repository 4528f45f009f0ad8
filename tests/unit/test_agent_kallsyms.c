/* The guest agent's one read of /proc/kallsyms (guestlib/vertigo_agent.c,
 * built here on the host with its main renamed): the lines it ships also
 * give the kernel's ORC declaration its five symbols (note_orc_symbol),
 * as a second read with sscanf did: the whole name only, any symbol type,
 * the first nonzero address, module lines too. */
#include "tests/unit/unit.h"

int vertigo_agent_main(int argc, char **argv);
#define main vertigo_agent_main
#include "guestlib/vertigo_agent.c"
#undef main

static void note_all(const char *const *lines, struct orc_symbols *o)
{
    *o = (struct orc_symbols){ 0 };
    for (; *lines; lines++)
        note_orc_symbol(*lines, o);
}

TEST(the_orc_symbols_come_from_the_shipped_kallsyms_lines)
{
    static const char *const lines[] = {
        "ffffffff81000000 T startup_64\n",
        "ffffffff81000000 T _stext\n",
        "ffffffff81e01ef2 T _etext\n",
        "ffffffff82a4c3d0 R __start_orc_unwind_ip\n",
        "ffffffff82b87a30 R __stop_orc_unwind_ip\n",
        "ffffffff82b87a30 R __start_orc_unwind\n",
        NULL,
    };
    struct orc_symbols o;
    note_all(lines, &o);
    CHECK_EQ(o.read_errno, 0);
    CHECK_EQ(o.addr[KSYM_STEXT], 0xffffffff81000000ull);
    CHECK_EQ(o.addr[KSYM_ETEXT], 0xffffffff81e01ef2ull);
    CHECK_EQ(o.addr[KSYM_ORC_IP], 0xffffffff82a4c3d0ull);
    CHECK_EQ(o.addr[KSYM_ORC_IP_END], 0xffffffff82b87a30ull);
    CHECK_EQ(o.addr[KSYM_ORC], 0xffffffff82b87a30ull);
}

TEST(only_whole_names_match_and_the_first_nonzero_address_wins)
{
    static const char *const lines[] = {
        "ffffffff81000010 t _stext_helper\n",           /* a longer name */
        "ffffffff81000020 t __start_orc_unwind_ip_x\n",
        "ffffffff81000030 T _stex\n",                    /* a shorter one */
        "0000000000000000 T _etext\n",                   /* unprivileged: no address */
        "ffffffff81e01ef2 T _etext\n",
        "ffffffff81000000 T _stext\n",
        "ffffffff8ffff000 T _stext\n",                   /* a second one: ignored */
        "ffffffffc0001000 t _stext\t[vertigo]\n",        /* module lines end in a tab */
        "garbage\n",
        "ffffffff81000040 _stext\n",                     /* no type */
        NULL,
    };
    struct orc_symbols o;
    note_all(lines, &o);
    CHECK_EQ(o.addr[KSYM_STEXT], 0xffffffff81000000ull);
    CHECK_EQ(o.addr[KSYM_ETEXT], 0xffffffff81e01ef2ull);
    CHECK_EQ(o.addr[KSYM_ORC_IP], 0);
    CHECK_EQ(o.addr[KSYM_ORC_IP_END], 0);
    CHECK_EQ(o.addr[KSYM_ORC], 0);
}

TEST(a_module_symbol_of_the_name_counts_as_before)
{
    static const char *const lines[] = {
        "ffffffffc0002000 r __start_orc_unwind\t[some_module]\n",
        NULL,
    };
    struct orc_symbols o;
    note_all(lines, &o);
    CHECK_EQ(o.addr[KSYM_ORC], 0xffffffffc0002000ull);  /* sscanf's %s stopped at the tab too */
}
