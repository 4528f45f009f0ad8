/* vertigo export --format pftrace: Perfetto's protobuf trace (a Trace
 * message: repeated TracePacket), as its trace processor imports CPU
 * profiles of perf: every sample a PerfSample packet at its time, whose
 * call stack is interned once per sequence (InternedData: function names,
 * mapping paths, build ids, mappings, frames, callstacks). The subset
 * written is described in tests/fixtures/perfetto/vertigo_trace.proto
 * (written from Perfetto's public format description), which `protoc
 * --decode` checks it against in the tests.
 *
 *   - one ProcessTree packet: a process per domain ("NAME (domain D)") and
 *     a thread per VCPU ("VCPU V"), numbered as trace_ids.h says (the
 *     names and the time base are the other time-ordered exports');
 *   - one packet on sequence 1 that clears and fills the interned state:
 *     a mapping per image (its path, GNU build id, address range), a frame
 *     per address and inlined function (function name, mapping, address
 *     in the mapping; an unknown function is named as the folded export
 *     names it, "[IMAGE]"), a callstack per distinct sample, root first: the
 *     guest process's name (a frame of the mapping "[process]", as the
 *     folded export's root), then its frames from the outermost caller,
 *     each followed by the functions inlined there from the outermost in;
 *   - a PerfSample packet per sample, in time order (nanoseconds from the
 *     TSC, as `vertigo script`): its VCPU as cpu, its domain's process and
 *     VCPU's thread, its mode (hypervisor, guest kernel, guest user: the
 *     CpuMode values Perfetto has for them) and callstack.
 * Perfetto's UI shows the samples on the VCPUs' threads and their stacks
 * as flame graphs; names are the symbolizer's (already cleaned of control
 * bytes), written as protobuf strings. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/keymap.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/pb_write.h"
#include "host-tools/perf_names.h"
#include "host-tools/profile.h"
#include "host-tools/trace_ids.h"

/* Field numbers of the messages written (Perfetto's public protos). */
enum { TRACE_PACKET = 1 };
enum { PACKET_PROCESS_TREE = 2, PACKET_TIMESTAMP = 8, PACKET_SEQUENCE_ID = 10,
       PACKET_INTERNED_DATA = 12, PACKET_SEQUENCE_FLAGS = 13, PACKET_PERF_SAMPLE = 66 };
enum { TREE_PROCESSES = 1, TREE_THREADS = 2 };
enum { PROCESS_PID = 1, PROCESS_CMDLINE = 3 };
enum { THREAD_TID = 1, THREAD_NAME = 2, THREAD_TGID = 3 };
enum { INTERNED_FUNCTION_NAMES = 5, INTERNED_FRAMES = 6, INTERNED_CALLSTACKS = 7,
       INTERNED_BUILD_IDS = 16, INTERNED_MAPPING_PATHS = 17, INTERNED_MAPPINGS = 19 };
enum { STRING_IID = 1, STRING_STR = 2 };
enum { MAPPING_IID = 1, MAPPING_BUILD_ID = 2, MAPPING_START = 4, MAPPING_END = 5,
       MAPPING_PATH_IDS = 7 };
enum { FRAME_IID = 1, FRAME_FUNCTION_NAME = 2, FRAME_MAPPING = 3, FRAME_REL_PC = 4 };
enum { CALLSTACK_IID = 1, CALLSTACK_FRAME_IDS = 2 };
enum { SAMPLE_CPU = 1, SAMPLE_PID = 2, SAMPLE_TID = 3, SAMPLE_CALLSTACK = 4, SAMPLE_CPU_MODE = 5 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { CPU_MODE_HYPERVISOR = 3, CPU_MODE_GUEST_KERNEL = 4, CPU_MODE_GUEST_USER = 5 };

#define SEQUENCE_ID 1u
#define PROCESS_MAPPING "[process]"
#define ROOT_FRAME UINT32_MAX         /* the frame key of a process's root frame */

struct interned {
    struct pb data;              /* the InternedData message */
    struct strings functions, paths, build_ids;
    struct keymap frames;        /* (frame id, inline level) or (ROOT_FRAME, comm) -> iid - 1 */
    uint64_t frame_count;
    uint64_t process_mapping;    /* the iid of "[process]" */
};

/* An InternedString entry of field `field` for string index id. */
static void put_string(struct pb *b, unsigned field, uint64_t id, const char *s)
{
    struct pb e = { 0 };
    pb_uint(&e, STRING_IID, id + 1);
    pb_bytes(&e, STRING_STR, s, strlen(s));
    pb_msg(b, field, &e);
    free(e.data);
}

/* The iid of s in table t, its InternedString written when it is new (s
 * may be a temporary buffer: the table keeps a copy). */
static uint64_t intern_string(struct interned *in, struct strings *t, unsigned field, const char *s)
{
    size_t before = t->count;
    uint64_t id = str_id(t, str_keep(t, s));
    if (t->count != before)
        put_string(&in->data, field, id, s);
    return id + 1;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The mapping of image i (iid i + 1), with its build id as raw bytes. */
static void put_mapping(struct interned *in, const struct profile *p, uint32_t i)
{
    const struct sym_image *img = sym_image(p->sym, i);
    struct pb m = { 0 };
    char hex[2 * LOG_BUILD_ID_SIZE + 1];
    pb_uint(&m, MAPPING_IID, (uint64_t)i + 1);
    if (sym_image_build_id(p->sym, i, hex)) {
        char raw[LOG_BUILD_ID_SIZE + 1] = "";
        size_t n = 0;
        for (; hex[2 * n] && hex[2 * n + 1] && n < LOG_BUILD_ID_SIZE; n++)
            raw[n] = (char)(hex_digit(hex[2 * n]) << 4 | hex_digit(hex[2 * n + 1]));
        raw[n] = '\0';
        /* (interned by its hex text: raw bytes may hold a 0) */
        size_t before = in->build_ids.count;
        uint64_t id = str_id(&in->build_ids, str_keep(&in->build_ids, hex));
        if (in->build_ids.count != before) {
            struct pb e = { 0 };
            pb_uint(&e, STRING_IID, id + 1);
            pb_bytes(&e, STRING_STR, raw, n);
            pb_msg(&in->data, INTERNED_BUILD_IDS, &e);
            free(e.data);
        }
        pb_uint(&m, MAPPING_BUILD_ID, id + 1);
    }
    pb_uint(&m, MAPPING_START, img->start);
    pb_uint(&m, MAPPING_END, img->limit);
    pb_uint(&m, MAPPING_PATH_IDS,
            intern_string(in, &in->paths, INTERNED_MAPPING_PATHS, img->name));
    pb_msg(&in->data, INTERNED_MAPPINGS, &m);
    free(m.data);
}

static void put_process_mapping(struct interned *in, const struct profile *p)
{
    struct pb m = { 0 };
    in->process_mapping = (uint64_t)sym_image_count(p->sym) + 1;
    pb_uint(&m, MAPPING_IID, in->process_mapping);
    pb_uint(&m, MAPPING_PATH_IDS,
            intern_string(in, &in->paths, INTERNED_MAPPING_PATHS, PROCESS_MAPPING));
    pb_msg(&in->data, INTERNED_MAPPINGS, &m);
    free(m.data);
}

/* The iid of the frame (key, level): written when new, named function,
 * in mapping at rel_pc. */
static uint64_t intern_frame(struct interned *in, uint64_t key, uint64_t level, const char *function,
                             uint64_t mapping, uint64_t rel_pc)
{
    uint32_t v = keymap_get(&in->frames, key, level, 0, (uint32_t)in->frame_count);
    if (v != in->frame_count)
        return (uint64_t)v + 1;
    in->frame_count++;
    struct pb f = { 0 };
    pb_uint(&f, FRAME_IID, (uint64_t)v + 1);
    pb_uint(&f, FRAME_FUNCTION_NAME, intern_string(in, &in->functions, INTERNED_FUNCTION_NAMES, function));
    pb_uint(&f, FRAME_MAPPING, mapping);
    pb_key(&f, FRAME_REL_PC, WIRE_VARINT);     /* set even when 0: it goes with the mapping */
    pb_varint(&f, rel_pc);
    pb_msg(&in->data, INTERNED_FRAMES, &f);
    free(f.data);
    return (uint64_t)v + 1;
}

/* The callstack of sample k (iid k + 1), root first. */
static void put_callstack(struct interned *in, const struct profile *p, uint64_t k)
{
    const struct profile_sample *s = &p->samples[k];
    struct pb c = { 0 }, ids = { 0 };
    char unknown[PERF_NAME_MAX];
    pb_uint(&c, CALLSTACK_IID, k + 1);
    uint64_t comm = intern_string(in, &in->functions, INTERNED_FUNCTION_NAMES, s->process.comm);
    pb_varint(&ids, intern_frame(in, ROOT_FRAME, comm, s->process.comm, in->process_mapping, 0));
    for (uint32_t i = s->depth; i-- > 0;) {
        const struct sym_frame *f = sym_frame(p->sym, s->frames[i]);
        const struct sym_image *img = sym_image(p->sym, f->image);
        uint64_t rel_pc = f->addr >= img->start ? f->addr - img->start : 0;
        for (uint32_t level = 0; level <= f->inline_count; level++) {
            uint32_t fn = level ? sym_frame_inlines(p->sym, f)[f->inline_count - level].function
                                : f->function;
            const char *name = sym_function(p->sym, fn)->known ? sym_function(p->sym, fn)->name :
                               perf_unknown_frame(img->name, f->mode, unknown);
            pb_varint(&ids, intern_frame(in, s->frames[i], level, name, (uint64_t)f->image + 1,
                                         rel_pc));
        }
    }
    pb_msg(&c, CALLSTACK_FRAME_IDS, &ids);
    pb_msg(&in->data, INTERNED_CALLSTACKS, &c);
    free(c.data);
    free(ids.data);
}

/* ---- Packets ------------------------------------------------------------ */

static bool write_packet(FILE *out, struct pb *packet)
{
    struct pb trace = { 0 };
    pb_msg(&trace, TRACE_PACKET, packet);
    bool ok = fwrite(trace.data, 1, trace.len, out) == trace.len;
    free(trace.data);
    return ok;
}

/* A process per domain and a thread per VCPU of the samples. */
static bool put_process_tree(FILE *out, const struct profile *p, uint64_t ts)
{
    struct pb packet = { 0 }, tree = { 0 }, e = { 0 };
    struct keymap seen = { 0 };          /* (domain, UINT64_MAX) and (domain, VCPU) */
    char name[TRACE_NAME_MAX];
    for (uint64_t i = 0; i < p->sample_count; i++) {
        const struct profile_sample *s = &p->samples[i];
        if (keymap_get(&seen, s->domain, UINT64_MAX, 0, 1) == 1) {
            keymap_set(&seen, s->domain, UINT64_MAX, 0, 2);
            pb_uint(&e, PROCESS_PID, trace_pid(s->domain));
            trace_process_name(p->domains, s->domain, name);
            pb_bytes(&e, PROCESS_CMDLINE, name, strlen(name));
            pb_msg(&tree, TREE_PROCESSES, &e);
        }
        if (keymap_get(&seen, s->domain, s->vcpu, 0, 1) != 1)
            continue;
        keymap_set(&seen, s->domain, s->vcpu, 0, 2);
        pb_uint(&e, THREAD_TID, trace_tid(s->domain, s->vcpu));
        trace_thread_name(s->vcpu, name);
        pb_bytes(&e, THREAD_NAME, name, strlen(name));
        pb_uint(&e, THREAD_TGID, trace_pid(s->domain));
        pb_msg(&tree, TREE_THREADS, &e);
    }
    pb_uint(&packet, PACKET_TIMESTAMP, ts);
    pb_msg(&packet, PACKET_PROCESS_TREE, &tree);
    bool ok = write_packet(out, &packet);
    keymap_free(&seen);
    free(packet.data);
    free(tree.data);
    free(e.data);
    return ok;
}

static bool put_interned(FILE *out, const struct profile *p, uint64_t ts)
{
    struct interned in = { 0 };
    for (uint32_t i = 0; i < sym_image_count(p->sym); i++)
        put_mapping(&in, p, i);
    put_process_mapping(&in, p);
    for (uint64_t k = 0; k < p->sample_count; k++)
        put_callstack(&in, p, k);
    struct pb packet = { 0 };
    pb_uint(&packet, PACKET_TIMESTAMP, ts);
    pb_uint(&packet, PACKET_SEQUENCE_ID, SEQUENCE_ID);
    pb_uint(&packet, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE);
    pb_msg(&packet, PACKET_INTERNED_DATA, &in.data);
    bool ok = write_packet(out, &packet);
    free(packet.data);
    free(in.data.data);
    strings_free(&in.functions);
    strings_free(&in.paths);
    strings_free(&in.build_ids);
    keymap_free(&in.frames);
    return ok;
}

static unsigned int cpu_mode(uint8_t mode)
{
    return mode == LOG_MODE_HYPERVISOR ? CPU_MODE_HYPERVISOR :
           mode == LOG_MODE_GUEST_KERNEL ? CPU_MODE_GUEST_KERNEL : CPU_MODE_GUEST_USER;
}

static bool put_sample(FILE *out, const struct profile *p, const struct profile_occurrence *o,
                       struct pb *packet, struct pb *sample)
{
    const struct profile_sample *s = &p->samples[o->sample];
    pb_key(sample, SAMPLE_CPU, WIRE_VARINT);
    pb_varint(sample, s->vcpu);
    pb_uint(sample, SAMPLE_PID, trace_pid(s->domain));
    pb_uint(sample, SAMPLE_TID, trace_tid(s->domain, s->vcpu));
    pb_uint(sample, SAMPLE_CALLSTACK, o->sample + 1);
    pb_uint(sample, SAMPLE_CPU_MODE, cpu_mode(s->mode));
    pb_key(packet, PACKET_TIMESTAMP, WIRE_VARINT);
    pb_varint(packet, timeline_ns(o->tsc, p->tsc_hz));
    pb_uint(packet, PACKET_SEQUENCE_ID, SEQUENCE_ID);
    pb_uint(packet, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    pb_msg(packet, PACKET_PERF_SAMPLE, sample);
    bool ok = write_packet(out, packet);
    packet->len = 0;
    return ok;
}

bool export_pftrace(FILE *out, const struct profile *p)
{
    const struct profile_timeline *t = &p->timeline;
    uint64_t ts = t->occ_count ? timeline_ns(t->occ[0].tsc, p->tsc_hz) : 0;
    bool ok = put_process_tree(out, p, ts) && put_interned(out, p, ts);
    struct pb packet = { 0 }, sample = { 0 };
    for (uint64_t i = 0; ok && i < t->occ_count; i++)
        ok = put_sample(out, p, &t->occ[i], &packet, &sample);
    free(packet.data);
    free(sample.data);
    return ok && !ferror(out);
}
