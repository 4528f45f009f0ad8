/* vertigo run [OPTIONS]: boots Vertigo on Bochs, QEMU TCG or QEMU/KVM and
 * judges the run. The runner is the script host-tools/vertigo-run (it
 * drives the emulators and reads the verdict); this command finds it and
 * hands over, so a user learns one command and the script stays usable
 * from make and the tests. */
#include "host-tools/vertigo.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNNER "vertigo-run"

const char cmd_run_help[] = "boot Vertigo (bochs, qemu-tcg, qemu-tcg-efi, qemu-kvm), print the verdict";

/* The directory of this executable, or "" if unknown. */
static void own_directory(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    dir[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
}

/* The runner script: next to this executable (an installed copy), in the
 * source tree above its build directory, or in the tree it was built from. */
static bool find_runner(char *path, size_t size)
{
    char dir[PATH_MAX];
    own_directory(dir, sizeof(dir));
    const char *const candidates[][2] = {
        { dir, "/" RUNNER },
        { dir, "/../host-tools/" RUNNER },
        { VERTIGO_SOURCE_DIR, "/host-tools/" RUNNER },
    };
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        if (!candidates[i][0][0])
            continue;
        int n = snprintf(path, size, "%s%s", candidates[i][0], candidates[i][1]);
        if (n > 0 && (size_t)n < size && access(path, X_OK) == 0)
            return true;
    }
    return false;
}

/* argv (NULL-terminated, argv[0] "run") goes to the runner unchanged. */
int cmd_run(int argc, char **argv)
{
    (void)argc;
    char runner[PATH_MAX];
    if (!find_runner(runner, sizeof(runner))) {
        fprintf(stderr, "vertigo run: cannot find host-tools/" RUNNER " next to this program or in "
                VERTIGO_SOURCE_DIR "\n");
        return VERTIGO_EXIT_USAGE;
    }
    argv[0] = runner;
    setenv("VERTIGO_RUN_NAME", "vertigo run", 1);   /* the runner's messages name the command */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {                                     /* `vertigo run --top` runs this program */
        self[n] = '\0';
        setenv("VERTIGO_BIN", self, 1);
    }
    execv(runner, argv);
    fprintf(stderr, "vertigo run: %s: %s\n", runner, strerror(errno));
    return VERTIGO_EXIT_USAGE;
}
