/* The event ids of interval rows (host-tools/interval_ids.h). */
#include "host-tools/interval_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/vertigo.h"

void interval_ids_note(struct interval_ids *m, const struct log_interval_events *ie)
{
    size_t need = m->count + 1 + ie->count;     /* the decoder checked count */
    if (need > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        while (cap < need)
            cap *= 2;
        uint32_t *words = cap < UINT32_MAX ? realloc(m->words, cap * sizeof(*words)) : NULL;
        if (!words) {
            fprintf(stderr, "vertigo: out of memory\n");
            exit(VERTIGO_EXIT_USAGE);
        }
        m->words = words;
        m->cap = cap;
    }
    uint32_t ref = (uint32_t)m->count + 1;
    m->words[m->count++] = ie->count;
    memcpy(m->words + m->count, ie->ids, ie->count * sizeof(ie->ids[0]));
    m->count += ie->count;
    keymap_set(&m->current, ie->domain, ie->vcpu, 0, ref);
}

uint32_t interval_ids_current(struct interval_ids *m, uint32_t domain, uint32_t vcpu)
{
    uint32_t ref = keymap_get(&m->current, domain, vcpu, 0, KEYMAP_NONE);
    return ref == KEYMAP_NONE ? 0 : ref;
}

uint32_t interval_ids_of(const struct interval_ids *m, uint32_t ref, uint32_t k)
{
    if (!ref || k >= m->words[ref - 1])
        return k;
    return m->words[ref + k];
}

void interval_ids_free(struct interval_ids *m)
{
    keymap_free(&m->current);
    free(m->words);
    memset(m, 0, sizeof(*m));
}
