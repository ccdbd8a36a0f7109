/*
 * kev_names.h: what the readers of kernel traces (tracedat.h, ctf.h)
 * share: which events the analyses know, by name, and under which names
 * each format holds the fields they read; and the kernel's letters for a
 * task's state.
 */
#ifndef SM_KEV_NAMES_H
#define SM_KEV_NAMES_H

#include <stdint.h>

#include "ingest/kevent.h"

/* What an event of this name is (ftrace's or LTTng's): KEV_OTHER if none. */
kev_type kev_type_of(const char *name);

/*
 * The names a field of this role may have in an event of this type, the
 * likelier first, ending with NULL.
 */
const char *const *kev_field_names(kev_type type, kev_field f);

/*
 * The group of the kernel's letter for a task state (S, D, R...): 0
 * with *ts, or -1 for a letter it does not know.
 */
int kev_task_state_letter(char letter, kev_task_state *ts);

/*
 * prev_state's bits read by the kernel's own table of letters (bits[i]
 * is letters[i]'s value; n of them): no bit of them set is R (still
 * runnable), else the letter of the lowest one set.
 */
kev_task_state kev_task_state_bits(uint64_t state, const uint64_t *bits,
    const char *letters, int n);

/*
 * The table of recent kernels (since 4.14), for a trace whose format
 * does not give its own: bits 1, 2, 4... for S D T t X Z P I.
 */
extern const uint64_t kev_default_state_bits[8];
extern const char kev_default_state_letters[8];

#endif
