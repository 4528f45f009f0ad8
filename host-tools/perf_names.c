/* perf script's names of images and unknown functions (see perf_names.h). */
#include "host-tools/perf_names.h"

#include <stdio.h>
#include <string.h>

#include "vertigo/log_format.h"

const char *perf_dso(const char *image, uint8_t mode, char out[PERF_NAME_MAX])
{
    size_t n = strlen(image);
    if (mode == LOG_MODE_GUEST_KERNEL || n < 2 || image[0] != '[' || image[n - 1] != ']')
        return image;
    snprintf(out, PERF_NAME_MAX, "//%.*s", (int)(n - 2), image + 1);
    return out;
}

const char *perf_unknown_frame(const char *image, uint8_t mode, char out[PERF_NAME_MAX])
{
    char dso[PERF_NAME_MAX];
    const char *name = perf_dso(image, mode, dso);
    const char *slash = strrchr(name, '/');
    snprintf(out, PERF_NAME_MAX, "[%s]", slash ? slash + 1 : name);
    return out;
}
