/* Log-latency printer, run inside a sandbox: prints N lines
 * "T <ns since the epoch>\n", each stamped with CLOCK_REALTIME right
 * before its write(2), one every INTERVAL_US microseconds.
 * Usage: printer N INTERVAL_US */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    long us = argc > 2 ? atol(argv[2]) : 1000;
    struct timespec pause = {us / 1000000, (us % 1000000) * 1000};
    for (long i = 0; i < n; i++) {
        char line[64];
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        int len = snprintf(line, sizeof line, "T %lld\n",
                           (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
        if (write(1, line, (size_t)len) != len)
            return 1;
        nanosleep(&pause, NULL);
    }
    return 0;
}
