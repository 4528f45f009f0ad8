/* The guest library's words for hypercall results (guestlib/vertigo_guest.c,
 * guestlib/vertigo_vmcall.h): every error code the ABI defines has its own
 * message and a specific errno, so a program in the guest can say why a
 * call was refused; a code the ABI does not define reads as unknown. */
#include "tests/unit/unit.h"
#include "guestlib/vertigo_guest.h"

#include <errno.h>
#include <string.h>

TEST(every_abi_error_has_its_own_message)
{
    for (int64_t code = 1; code <= VERTIGO_ERROR_MAX; code++) {
        const char *text = vertigo_strerror(-code);
        CHECK(strcmp(text, "unknown error") != 0);
        for (int64_t other = 1; other < code; other++)
            CHECK(strcmp(text, vertigo_strerror(-other)) != 0);
    }
    CHECK(strcmp(vertigo_strerror(-(VERTIGO_ERROR_MAX + 1)), "unknown error") == 0);
    CHECK(strcmp(vertigo_strerror(3), "success") == 0);
}

TEST(every_abi_error_has_a_specific_errno)
{
    for (int64_t code = 1; code <= VERTIGO_ERROR_MAX; code++)
        CHECK(vertigo_errno(-code) != EIO && vertigo_errno(-code) > 0);
    CHECK_EQ(vertigo_errno(-VERTIGO_EACCES), EACCES);
    CHECK_EQ(vertigo_errno(-VERTIGO_EMMIO), EFAULT);
    CHECK_EQ(vertigo_errno(-(VERTIGO_ERROR_MAX + 1)), EIO);
    CHECK_EQ(vertigo_errno(5), 0);
}
