/* The switch of log_varint_put_wide (see vmm/log_varint.h). */
#include "vmm/log_varint.h"

bool log_varint_pdep;
