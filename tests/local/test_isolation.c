/* Local executor isolation: network, host files, host processes, limits. */
#include "lt.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int listener(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(s, 8) == 0);
    socklen_t l = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &l);
    *port = ntohs(a.sin_port);
    return s;
}

TEST(test_local_isolation__no_network_unless_allowed)
{
    lt t;
    lt_open(&t, "iso-net");
    int port, s = listener(&port);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "bash -c 'echo hi > /dev/tcp/127.0.0.1/%d'",
             port);
    lt_sandbox(&t, "blocked", NULL);
    lt_out o = { 0 };
    CHECK(lt_run(&t, "blocked", cmd, &o) != 0);
    lt_out_free(&o);
    /* loopback inside works (lo is up) */
    lt_out o2 = { 0 };
    CHECK_INT(lt_run(&t, "blocked", "ip -o link show lo | grep -q UP", &o2),
              0);
    lt_out_free(&o2);
    dval_sandbox_options opts = { .struct_size = sizeof opts,
                                  .network = DVAL_NETWORK_ALLOW };
    lt_sandbox(&t, "allowed", &opts);
    lt_out o3 = { 0 };
    CHECK_INT(lt_run(&t, "allowed", cmd, &o3), 0);
    lt_out_free(&o3);
    close(s);
    lt_close(&t);
}

TEST(test_local_isolation__host_files_untouched)
{
    lt t;
    lt_open(&t, "iso-files");
    lt_sandbox(&t, "sb", NULL);
    char cmd[1024];
    /* the system root is read-only to commands (they are not root): the
     * writes fail inside, and nothing reaches the host either way */
    snprintf(cmd, sizeof cmd,
             "echo x > /etc/dval-local-marker; echo y > /usr/dval-marker; "
             "rm -f /etc/hostname; test -e /etc/dval-local-marker && exit 9; "
             "test -e /etc/hostname || exit 8; echo x > /tmp/m && cat /tmp/m "
             "&& ls -A '%s' | wc -l", t.dir);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", cmd, &o), 0);
    CHECK_STR(o.out.data, "x\n0\n"); /* the state dir is hidden */
    struct stat st;
    CHECK(stat("/etc/dval-local-marker", &st) != 0);
    CHECK(stat("/usr/dval-marker", &st) != 0);
    CHECK(stat("/etc/hostname", &st) == 0);
    lt_out_free(&o);
    /* no way back out: no mounts, no device nodes, /proc/sys read-only */
    lt_out o2 = { 0 };
    CHECK(lt_run(&t, "sb", "mount -t tmpfs x /mnt", &o2) != 0);
    CHECK(lt_run(&t, "sb", "mknod /tmp/d b 254 0", &o2) != 0);
    CHECK(lt_run(&t, "sb", "echo 1 > /proc/sys/kernel/sysrq", &o2) != 0);
    lt_out_free(&o2);
    lt_close(&t);
}

TEST(test_local_isolation__host_processes_invisible)
{
    lt t;
    lt_open(&t, "iso-procs");
    lt_sandbox(&t, "sb", NULL);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "kill -0 %d 2>/dev/null && echo visible; "
             "ls /proc | grep -c '^[0-9]'", (int)getpid());
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", cmd, &o), 0);
    CHECK(o.out.data && atoi(o.out.data) < 6); /* init, sh, ls, grep */
    lt_out_free(&o);
    lt_close(&t);
}

TEST(test_local_isolation__fork_bomb_contained)
{
    lt t;
    lt_open(&t, "iso-pids");
    dval_sandbox_options opts = { .struct_size = sizeof opts,
                                  .max_pids = 32 };
    lt_sandbox(&t, "sb", &opts);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "sh -c 'while :; do sleep 30 & done' "
                     "2>/dev/null; set -- /proc/[0-9]*; echo $#; kill -9 -1", &o), 0);
    CHECK(o.out.data && atoi(o.out.data) <= 32 && atoi(o.out.data) > 10);
    lt_out_free(&o);
    lt_close(&t);
}

TEST(test_local_isolation__memory_hog_killed)
{
    lt t;
    lt_open(&t, "iso-mem");
    dval_sandbox_options opts = { .struct_size = sizeof opts,
                                  .max_memory_bytes = 64LL << 20 };
    lt_sandbox(&t, "sb", &opts);
    lt_out o = { 0 };
    /* tail keeps the whole newline-free input in memory */
    CHECK_INT(lt_run(&t, "sb", "head -c 400M /dev/zero | tail | wc -c",
                     &o), 0);
    CHECK(o.out.data && atoi(o.out.data) == 0);
    lt_out_free(&o);
    lt_out o2 = { 0 };
    CHECK_INT(lt_run(&t, "sb", "exec tail /dev/zero", &o2), 137);
    lt_out_free(&o2);
    lt_close(&t);
}
