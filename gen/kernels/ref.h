/* ref.h - entries of ref.c that other library files need; not installed. */
#ifndef MMAGEN_REF_H
#define MMAGEN_REF_H

#include "mmagen.h"

/* K elements of the dense logical A per scale factor of a block-scaled
 * form (mmagen_ref_args: sa is M x (K / this)). */
unsigned ref_scale_block(const mmagen_form *f);

#endif
