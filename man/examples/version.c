/* Refuse to run against a library older than the header. */
#include <stdio.h>
#include <dval.h>

int main(void)
{
    if (dval_version_num() < DVAL_VERSION_NUM) {
        fprintf(stderr, "libdaytona-validate %s is older than %s\n",
                dval_version(), DVAL_VERSION_STRING);
        return 1;
    }
    printf("libdaytona-validate %s\n", dval_version());
    return 0;
}
