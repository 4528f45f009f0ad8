/* The switch of log_varint_put_wide (see vmm/log/log_varint.h). */
#include "vmm/log/log_varint.h"

bool log_varint_pdep;
