/* The program of tests/local/test_hostile_reset.c, compiled static on the
 * host and uploaded: "plant" leaves what a reset that keeps the sandbox's
 * init must remove; "check" prints "LEFT <what>" for each thing of it
 * still there; "net" leaves a TCP port in TIME_WAIT, "bind" says whether
 * that port can be bound again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PORT 4567

/* A process of its own, out of the session's group (the session sweep
 * must not be what removes it). */
static int detached(void)
{
    pid_t p = fork();
    if (p != 0)
        return 0;
    setsid();
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (fork() != 0)
        _exit(0);
    return 1;
}

static void processes(void)
{
    if (detached()) { /* stopped */
        kill(getpid(), SIGSTOP);
        _exit(0);
    }
    if (detached()) { /* a zombie's parent that never waits */
        if (fork() == 0)
            _exit(0);
        for (;;)
            pause();
    }
    if (detached()) /* forking in a loop, during the reset too */
        for (;;) {
            pid_t c = fork();
            if (c == 0) {
                usleep(20000);
                _exit(0);
            }
            usleep(1000);
            while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        }
}

static void ipc(void)
{
    int shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    int msg = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    int sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    struct mq_attr a = { 0, 4, 64, 0, { 0 } };
    mqd_t q = mq_open("/dvalq", O_CREAT | O_RDWR, 0600, &a);
    int ps = shm_open("/dvalshm", O_CREAT | O_RDWR, 0600);
    if (shm >= 0 && msg >= 0 && sem >= 0 && q != (mqd_t)-1 && ps >= 0)
        printf("IPC-PLANTED\n");
    else
        printf("ipc: %s\n", strerror(errno));
}

static void files(void)
{
    char p[8192] = "/var/tmp/deep";
    mkdir(p, 0700);
    for (int i = 0; i < 300; i++) {
        strcat(p, "/d");
        if (mkdir(p, 0700) < 0)
            break;
    }
    int ok = mkfifo("/tmp/dvalfifo", 0600) == 0;
    ok &= symlink("/etc/passwd", "/tmp/dvallink") == 0;
    int fd = open("/var/tmp/dvalfile", O_CREAT | O_WRONLY, 0666);
    ok &= fd >= 0 && write(fd, "x", 1) == 1;
    close(fd);
    if (ok)
        printf("FILES-PLANTED\n");
    if (sethostname("evil", 4) == 0)
        printf("HOSTNAME-CHANGED\n");
}

static void left(const char *what, int cond)
{
    if (cond)
        printf("LEFT %s\n", what);
}

static void check(void)
{
    struct shm_info si;
    struct msginfo mi;
    struct seminfo ei;
    union { int v; struct seminfo *i; } su = { .i = &ei };
    left("shm", shmctl(0, SHM_INFO, (void *)&si) >= 0 && si.used_ids);
    left("msg", msgctl(0, MSG_INFO, (void *)&mi) >= 0 && mi.msgpool);
    left("sem", semctl(0, 0, SEM_INFO, su) >= 0 && ei.semusz);
    left("mq", mq_open("/dvalq", O_RDONLY) != (mqd_t)-1);
    left("posix shm", access("/dev/shm/dvalshm", F_OK) == 0);
    left("deep tree", access("/var/tmp/deep", F_OK) == 0);
    left("fifo", access("/tmp/dvalfifo", F_OK) == 0);
    struct stat st;
    left("symlink", lstat("/tmp/dvallink", &st) == 0);
    left("file", access("/var/tmp/dvalfile", F_OK) == 0);
    char h[64] = "";
    gethostname(h, sizeof h);
    left("hostname", strcmp(h, "sandbox") != 0);
    printf("CHECKED\n");
}

static int tcp(void)
{
    return socket(AF_INET, SOCK_STREAM, 0);
}

static struct sockaddr_in lo(void)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(PORT);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* The server side closes first: its port stays in TIME_WAIT (60 s). */
static void net(void)
{
    struct sockaddr_in a = lo();
    int s = tcp(), c = tcp();
    if (bind(s, (void *)&a, sizeof a) < 0 || listen(s, 1) < 0 ||
        connect(c, (void *)&a, sizeof a) < 0) {
        printf("net: %s\n", strerror(errno));
        return;
    }
    int k = accept(s, NULL, NULL);
    close(s);
    close(k);
    usleep(100000);
    close(c);
    printf("NET-PLANTED\n");
}

static void bind_again(void)
{
    struct sockaddr_in a = lo();
    int s = tcp();
    if (bind(s, (void *)&a, sizeof a) == 0)
        printf("BIND-OK\n");
    else
        printf("LEFT port: %s\n", strerror(errno));
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(m, "plant")) {
        ipc();
        files();
        processes();
    } else if (!strcmp(m, "check")) {
        check();
    } else if (!strcmp(m, "net")) {
        net();
    } else if (!strcmp(m, "bind")) {
        bind_again();
    }
    return 0;
}
