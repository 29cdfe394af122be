/* tcgen05.h - what the tcgen05 tile kernel (kernel_tcgen05.c) takes from
 * tcgen05.c besides the public descriptor API of mmagen.h. */
#ifndef MMAGEN_TCGEN05_H
#define MMAGEN_TCGEN05_H

#include "internal.h"

/* Scale factors per row of A (and per column of B) of a block-scaled form
 * (ISA Table 56: 1, 2 or 4); 0 for the other kinds. */
unsigned tc_scale_count(const mmagen_form *f);

#endif
