/* vertigo export --format pprof: a gzipped perftools.profiles.Profile
 * (github.com/google/pprof, proto/profile.proto; our re-typed schema is
 * tests/fixtures/pprof/profile.proto). A hand-written protobuf encoder:
 * sample types "samples" (all events) and one per event counting its
 * occurrences (samples times their period, as perf's event count); one
 * sample per distinct sample with string labels domain, vcpu, mode, comm
 * (and event, with several) and the numeric label pid (unit "pid"); a
 * hypervisor sample also has hypervisor_frames (unit "frames"): how many
 * of its frames, from the leaf, are Vertigo's (in Vertigo's mapping), the
 * others being the guest's at the exit Vertigo handled; one
 * mapping per image, the profiled program's first (the ELF image of the
 * most user samples: pprof takes the first mapping as the main binary),
 * with its GNU build id and whether its functions, files, lines and
 * inlined functions are known; one location per resolved address (leaf
 * first in a sample), with one line per function inlined there, and one
 * function per symbol; the first event's period (its mean where the
 * periods changed). Compressed with zlib (gzip). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "host-tools/pb_write.h"
#include "host-tools/profile.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

/* The Profile message's field numbers. */
enum { PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
       PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11,
       PROFILE_PERIOD = 12, PROFILE_DEFAULT_SAMPLE_TYPE = 14 };
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4 };
enum { MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_OFFSET = 4,
       MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
       MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10 };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
       FUNCTION_START_LINE = 5 };

#define GZIP_WINDOW_BITS (15 + 16)   /* zlib: 32 KiB window, gzip wrapper */
#define ZLIB_MEM_LEVEL 8
#define MAPPING_NAME_MAX 4096u       /* bytes of an image name kept (maps lines are shorter) */

/* ---- Messages ----------------------------------------------------------- */

static void put_value_type(struct pb *b, unsigned field, struct strings *st, const char *type,
                           const char *unit)
{
    struct pb vt = { 0 };
    pb_uint(&vt, VALUE_TYPE_TYPE, str_id(st, type));
    pb_uint(&vt, VALUE_TYPE_UNIT, str_id(st, unit));
    pb_msg(b, field, &vt);
    free(vt.data);
}

/* A string label; pprof keeps it whatever its value (a numeric label of
 * value 0 without a unit is dropped). */
static void put_label(struct pb *sample, struct pb *tmp, struct strings *st, const char *key,
                      const char *str)
{
    pb_uint(tmp, LABEL_KEY, str_id(st, key));
    pb_uint(tmp, LABEL_STR, str_id(st, str));
    pb_msg(sample, SAMPLE_LABEL, tmp);
}

/* A numeric label with its unit; the value is written even when 0. */
static void put_num_label(struct pb *sample, struct pb *tmp, struct strings *st, const char *key,
                          uint64_t num, const char *unit)
{
    pb_uint(tmp, LABEL_KEY, str_id(st, key));
    pb_key(tmp, LABEL_NUM, WIRE_VARINT);
    pb_varint(tmp, num);
    pb_uint(tmp, LABEL_NUM_UNIT, str_id(st, unit));
    pb_msg(sample, SAMPLE_LABEL, tmp);
}

/* The sample's labels: where it was taken and in which process. */
static void put_labels(struct pb *msg, const struct profile *p, const struct profile_sample *s,
                       struct strings *st)
{
    struct pb tmp = { 0 };
    char text[16], name[DOMAIN_NAME_MAX];
    snprintf(text, sizeof(text), "%u", s->vcpu);
    put_label(msg, &tmp, st, "domain", str_keep(st, profile_domain_name(p, s->domain, name)));
    put_num_label(msg, &tmp, st, "domain_id", s->domain, "domain");
    put_label(msg, &tmp, st, "vcpu", str_keep(st, text));
    put_label(msg, &tmp, st, "mode", profile_mode_name(s->mode));
    put_label(msg, &tmp, st, "comm", s->process.comm);
    put_num_label(msg, &tmp, st, "pid", s->process.pid, "pid");
    if (s->mode == LOG_MODE_HYPERVISOR)     /* Vertigo's frames on top of the guest's */
        put_num_label(msg, &tmp, st, "hypervisor_frames", s->context ? s->context : s->depth,
                      "frames");
    if (p->event_count > 1)
        put_label(msg, &tmp, st, "event", p->events[s->event].name);
    free(tmp.data);
}

static void put_sample(struct pb *b, const struct profile *p, const struct profile_sample *s,
                       struct strings *st)
{
    struct pb msg = { 0 }, packed = { 0 }, tmp = { 0 };
    for (uint32_t i = 0; i < s->depth; i++)
        pb_varint(&packed, (uint64_t)s->frames[i] + 1);
    pb_msg(&msg, SAMPLE_LOCATION_ID, &packed);
    pb_varint(&packed, s->count);
    for (uint32_t e = 0; e < p->event_count; e++)
        pb_varint(&packed, e == s->event ? s->count * s->period : 0);
    pb_msg(&msg, SAMPLE_VALUE, &packed);
    put_labels(&msg, p, s, st);
    pb_msg(b, PROFILE_SAMPLE, &msg);
    free(msg.data);
    free(packed.data);
    free(tmp.data);
}

/* What pprof may take from an image's locations. */
enum { KNOWS_FUNCTIONS = 1, KNOWS_FILES = 2, KNOWS_LINES = 4, KNOWS_INLINES = 8 };

/* Per image: which of functions, file names, line numbers and inlined
 * functions its frames have (every frame of every kept sample looked at once), and its user
 * samples (the profiled program is the image with the most). */
struct image_facts {
    uint8_t *knows;
    uint64_t *user_samples;
};

static void image_facts(const struct profile *p, struct image_facts *f)
{
    uint32_t n = sym_image_count(p->sym);
    f->knows = calloc(n + 1u, sizeof(*f->knows));
    f->user_samples = calloc(n + 1u, sizeof(*f->user_samples));
    if (!f->knows || !f->user_samples)
        vertigo_out_of_memory();
    for (uint64_t i = 0; i < p->sample_count; i++) {
        const struct profile_sample *s = &p->samples[i];
        for (uint32_t k = 0; k < s->depth; k++) {
            const struct sym_frame *fr = sym_frame(p->sym, s->frames[k]);
            const struct sym_function *fn = sym_function(p->sym, fr->function);
            f->knows[fr->image] |= (fn->known ? KNOWS_FUNCTIONS : 0) |
                                   (fn->file ? KNOWS_FILES : 0) | (fr->line ? KNOWS_LINES : 0) |
                                   (fr->inline_count ? KNOWS_INLINES : 0);
        }
        if (s->mode == LOG_MODE_GUEST_USER)
            f->user_samples[sym_frame(p->sym, s->frames[0])->image] += s->count;
    }
}

/* Whether image i is the better main binary: an ELF file before anything
 * else (a JIT map, anonymous memory), then more user samples. */
static bool better_main(const struct profile *p, const struct image_facts *f, uint32_t i,
                        uint32_t than)
{
    bool elf = sym_image(p->sym, i)->elf != 0, other_elf = sym_image(p->sym, than)->elf != 0;
    return elf != other_elf ? elf : f->user_samples[i] > f->user_samples[than];
}

/* Mapping ids: the ELF image with the most user samples first (pprof's
 * main binary), the others in image order. */
static uint32_t *mapping_ids(const struct profile *p, const struct image_facts *f)
{
    uint32_t n = sym_image_count(p->sym), main = 0;
    for (uint32_t i = 1; i < n; i++)
        if (better_main(p, f, i, main))
            main = i;
    uint32_t *id = calloc(n + 1u, sizeof(*id));
    if (!id)
        vertigo_out_of_memory();
    for (uint32_t i = 0, next = 2; i < n; i++)
        id[i] = i == main ? 1 : next++;
    return id;
}

/* path with "." and ".." components resolved as the guest's kernel
 * resolves them lexically (".." at the root stays there) and repeated
 * slashes joined, into out (size bytes). pprof joins a mapping's name to
 * its binary search path ($HOME/pprof/binaries): a name climbing out with
 * ".." would reach any host file. */
static void normalize_path(const char *path, char *out, size_t size)
{
    size_t len = 0, n;
    bool absolute = path[0] == '/';
    out[0] = '\0';
    for (const char *c = path; *c; c += n) {
        c += strspn(c, "/");
        n = strcspn(c, "/");
        if (!n || (n == 1 && c[0] == '.'))
            continue;
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            char *slash = strrchr(out, '/');
            len = slash ? (size_t)(slash - out) : 0;
            out[len] = '\0';
            continue;
        }
        if (len + 1 + n + 1 > size)
            break;
        if (len || absolute)
            out[len++] = '/';
        memcpy(out + len, c, n);
        len += n;
        out[len] = '\0';
    }
    if (!len && absolute)
        snprintf(out, size, "/");
}

/* The mapping's file name. pprof opens it to symbolize (unless the
 * mapping says it has functions, or -symbolize=none) and looks for it
 * under its search path: so a guest image names a host path only when
 * Vertigo read it from the --guest-root the user gave (it has an ELF
 * file), and then without "..". Any other guest image (a path no root
 * held, a JIT map) is named with its last component in brackets,
 * "/usr/lib/[libc.so.6]", which pprof takes for a name it never opens
 * (as "[vdso]"); names in brackets already ("[kernel.kallsyms]",
 * "[anon]") stay. */
static void mapping_file(const struct sym_image *img, char *out, size_t size)
{
    char path[MAPPING_NAME_MAX];
    normalize_path(img->name, path, sizeof(path));
    char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (img->elf || img->name[0] == '[') {
        snprintf(out, size, "%s", img->elf ? path : img->name);
        return;
    }
    if (!*base) {                     /* "/": names no file at all */
        snprintf(out, size, "[no file]");
        return;
    }
    if (snprintf(out, size, "%.*s[%s]", (int)(base - path), path, base) < 0)
        out[0] = '\0';                /* (out holds path and two brackets) */
}

static void put_mapping(struct pb *b, const struct profile *p, struct strings *st, uint32_t i,
                        uint32_t id, uint8_t knows)
{
    struct pb m = { 0 };
    const struct sym_image *img = sym_image(p->sym, i);
    char build_id[2 * LOG_BUILD_ID_SIZE + 1], file[2 * MAPPING_NAME_MAX + 3];
    mapping_file(img, file, sizeof(file));
    pb_uint(&m, MAPPING_ID, id);
    pb_uint(&m, MAPPING_START, img->start);
    pb_uint(&m, MAPPING_LIMIT, img->limit);
    pb_uint(&m, MAPPING_OFFSET, img->file_offset);
    pb_uint(&m, MAPPING_FILENAME, str_id(st, str_keep(st, file)));
    if (sym_image_build_id(p->sym, i, build_id))
        pb_uint(&m, MAPPING_BUILD_ID, str_id(st, str_keep(st, build_id)));
    pb_uint(&m, MAPPING_HAS_FUNCTIONS, (knows & KNOWS_FUNCTIONS) != 0);
    pb_uint(&m, MAPPING_HAS_FILENAMES, (knows & KNOWS_FILES) != 0);
    pb_uint(&m, MAPPING_HAS_LINE_NUMBERS, (knows & KNOWS_LINES) != 0);
    pb_uint(&m, MAPPING_HAS_INLINE_FRAMES, (knows & KNOWS_INLINES) != 0);
    pb_msg(b, PROFILE_MAPPING, &m);
    free(m.data);
}

/* Mappings in id order (pprof takes the first as the main binary). */
static void put_mappings(struct pb *b, const struct profile *p, struct strings *st,
                         const struct image_facts *f, const uint32_t *ids)
{
    uint32_t n = sym_image_count(p->sym);
    uint32_t *by_id = calloc(n + 1u, sizeof(*by_id));
    if (!by_id)
        vertigo_out_of_memory();
    for (uint32_t i = 0; i < n; i++)
        by_id[ids[i] - 1] = i;
    for (uint32_t k = 0; k < n; k++)
        put_mapping(b, p, st, by_id[k], k + 1, f->knows[by_id[k]]);
    free(by_id);
}

/* A location's lines: the functions inlined at its address, innermost
 * first, then the function holding it, at the line it called the
 * outermost of them from (pprof's order: the last line is the caller). */
static void put_lines(struct pb *loc, struct pb *line, const struct profile *p,
                      const struct sym_frame *f)
{
    const struct sym_inline *in = sym_frame_inlines(p->sym, f);
    for (uint32_t i = 0; i < f->inline_count; i++) {
        pb_uint(line, LINE_FUNCTION_ID, (uint64_t)in[i].function + 1);
        pb_uint(line, LINE_LINE, in[i].line);
        pb_msg(loc, LOCATION_LINE, line);
    }
    pb_uint(line, LINE_FUNCTION_ID, (uint64_t)f->function + 1);
    pb_uint(line, LINE_LINE, f->inline_count ? f->call_line : f->line);
    pb_msg(loc, LOCATION_LINE, line);
}

/* Locations: every frame some kept sample uses (frame id + 1). */
static void put_locations(struct pb *b, const struct profile *p, const uint32_t *mapping_of_image)
{
    uint32_t max = 0;
    for (uint64_t i = 0; i < p->sample_count; i++)
        for (uint32_t k = 0; k < p->samples[i].depth; k++)
            if (p->samples[i].frames[k] + 1 > max)
                max = p->samples[i].frames[k] + 1;
    uint8_t *used = calloc(max + 1u, 1);
    if (!used)
        vertigo_out_of_memory();
    for (uint64_t i = 0; i < p->sample_count; i++)
        for (uint32_t k = 0; k < p->samples[i].depth; k++)
            used[p->samples[i].frames[k]] = 1;
    struct pb loc = { 0 }, line = { 0 };
    for (uint32_t id = 0; id < max; id++) {
        if (!used[id])
            continue;
        const struct sym_frame *f = sym_frame(p->sym, id);
        pb_uint(&loc, LOCATION_ID, (uint64_t)id + 1);
        pb_uint(&loc, LOCATION_MAPPING_ID, mapping_of_image[f->image]);
        pb_uint(&loc, LOCATION_ADDRESS, f->addr);
        put_lines(&loc, &line, p, f);
        pb_msg(b, PROFILE_LOCATION, &loc);
    }
    free(used);
    free(loc.data);
    free(line.data);
}

static void put_functions(struct pb *b, const struct profile *p, struct strings *st)
{
    struct pb fn = { 0 };
    for (uint32_t i = 0; i < sym_function_count(p->sym); i++) {
        const struct sym_function *f = sym_function(p->sym, i);
        pb_uint(&fn, FUNCTION_ID, (uint64_t)i + 1);
        pb_uint(&fn, FUNCTION_NAME, str_id(st, f->name));
        pb_uint(&fn, FUNCTION_SYSTEM_NAME, str_id(st, f->name));
        if (f->file)
            pb_uint(&fn, FUNCTION_FILENAME, str_id(st, f->file));
        pb_uint(&fn, FUNCTION_START_LINE, f->line);
        pb_msg(b, PROFILE_FUNCTION, &fn);
    }
    free(fn.data);
}

/* The Profile's one period (events between two samples): the event's
 * period if all its samples had the same, else (frequency mode, periods
 * changed) their mean, events over samples, rounded; 1 for an event
 * without samples or period. Each sample's values carry its own. */
static uint64_t profile_period(const struct profile_event *e)
{
    if (e->period)
        return e->period;
    return e->total ? (e->events + e->total / 2) / e->total : 1;
}

/* One string of the table, made valid UTF-8 without control characters
 * (text_quote.h): protobuf readers refuse a string field that is not
 * UTF-8, and pprof prints these names to terminals. */
static void put_string(struct pb *b, const char *s)
{
    size_t len;
    char *clean = text_utf8_copy(s, &len);
    if (!clean) {
        fprintf(stderr, "vertigo export: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    pb_bytes(b, PROFILE_STRING_TABLE, clean, len);
    free(clean);
}

/* The whole Profile message, uncompressed. */
static void encode_profile(struct pb *b, const struct profile *p)
{
    struct strings st = { 0 };
    str_id(&st, "");
    put_value_type(b, PROFILE_SAMPLE_TYPE, &st, "samples", "count");
    for (uint32_t e = 0; e < p->event_count; e++)
        put_value_type(b, PROFILE_SAMPLE_TYPE, &st, p->events[e].name, "count");
    for (uint64_t i = 0; i < p->sample_count; i++)
        put_sample(b, p, &p->samples[i], &st);
    struct image_facts facts;
    image_facts(p, &facts);
    uint32_t *ids = mapping_ids(p, &facts);
    put_mappings(b, p, &st, &facts, ids);
    put_locations(b, p, ids);
    put_functions(b, p, &st);
    if (p->event_count) {   /* the first event's: one occurrence per count of its type */
        put_value_type(b, PROFILE_PERIOD_TYPE, &st, p->events[0].name, "count");
        pb_uint(b, PROFILE_PERIOD, profile_period(&p->events[0]));
        pb_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(&st, p->events[0].name));
    }
    for (size_t i = 0; i < st.count; i++)
        put_string(b, st.list[i]);
    strings_free(&st);
    free(facts.knows);
    free(facts.user_samples);
    free(ids);
}

static bool gzip_write(FILE *out, const uint8_t *data, size_t len)
{
    z_stream z = { 0 };
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, ZLIB_MEM_LEVEL,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    uLong bound = deflateBound(&z, (uLong)len);
    uint8_t *buf = malloc(bound);
    bool ok = buf != NULL;
    if (ok) {
        z.next_in = (Bytef *)data;
        z.avail_in = (uInt)len;
        z.next_out = buf;
        z.avail_out = (uInt)bound;
        ok = deflate(&z, Z_FINISH) == Z_STREAM_END &&
             fwrite(buf, 1, z.total_out, out) == z.total_out;
    }
    deflateEnd(&z);
    free(buf);
    return ok;
}

bool export_pprof_fits(const struct profile *p, char *err, size_t err_len)
{
    for (uint32_t e = 0; e < p->event_count; e++) {
        const struct profile_event *ev = &p->events[e];
        if (!ev->past_int64)
            continue;
        snprintf(err, err_len, "event '%s' counts %" PRIu64 " events, more than pprof's signed "
                 "64-bit values hold (2^63 - 1; passed at the sample record at offset %" PRIu64
                 "): export it as csv or folded, or choose another with --event", ev->name,
                 ev->events, ev->int64_offset);
        return false;
    }
    return true;
}

bool export_pprof(FILE *out, const struct profile *p)
{
    struct pb b = { 0 };
    encode_profile(&b, p);
    bool ok = gzip_write(out, b.data, b.len);
    free(b.data);
    return ok;
}
