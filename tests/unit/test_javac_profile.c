/* The java profile's compile-service command construction (the parts that
 * run on Daytona too, where this machine cannot run them): the build steps
 * are the same for a local image and a Daytona image build, they carry the
 * repository's service sources byte for byte, and every command line is
 * valid sh. */
#include "harness.h"
#include "javac_service.h"
#include "javac_service_files.h"
#include "profile_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dval.h>

/* 0 when `sh -n` accepts cmd */
static int sh_parses(const char *cmd)
{
    char path[] = "/tmp/dval-javac-sh.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(cmd, f);
    fclose(f);
    char sh[128];
    snprintf(sh, sizeof sh, "sh -n %s", path);
    int rc = system(sh);
    remove(path);
    return rc;
}

/* 0 when b64 decodes to the content of file */
static int decodes_to(const char *b64, const char *file)
{
    char cmd[256];
    char path[] = "/tmp/dval-javac-b64.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(b64, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "base64 -d %s | cmp -s - %s", path, file);
    int rc = system(cmd);
    remove(path);
    return rc;
}

TEST(test_javac_profile__build_steps_same_for_local_and_daytona)
{
    const dval_profile *p = dval_profile_find("java");
    CHECK(p != NULL);
    const char *const *d = p->build_commands, *const *l =
        p->local_build_commands;
    CHECK_CONTAINS(d[0], "apt-get install -y maven");
    CHECK_STR(l[0], "javac -version");
    for (int i = 1; i <= 2; i++) {
        CHECK(d[i] && l[i]);
        CHECK_STR(d[i], l[i]);
        CHECK_INT(sh_parses(d[i]), 0);
    }
    /* then the runtime inside, in its own words */
    CHECK_STR(d[3], l[3]);
    CHECK_CONTAINS(d[3], "java -version 2>&1 | head -n 1 > /etc/dval/runtime");
    CHECK(d[4] == NULL && l[4] == NULL);
    CHECK_CONTAINS(d[1], "base64 -d > " DVAL_JAVAC_DIR "/JavacService.java");
    CHECK_CONTAINS(d[2], "chown " DVAL_JAVAC_UID_S ":" DVAL_JAVAC_UID_S " "
                   DVAL_JAVAC_RUN_DIR);
    /* described as a profile service, shared by the snapshot's sandboxes
     * (the local services host), which the core starts elsewhere */
    CHECK_CONTAINS(d[2], "'uid " DVAL_JAVAC_UID_S "' 'dir " DVAL_JAVAC_RUN_DIR
                   "' 'run " DVAL_JAVAC_SERVICE_CMD "' 'shared 1' > "
                   DVAL_SERVICE_DIR "/javac");
    CHECK_CONTAINS(d[2], "-XX:ArchiveClassesAtExit=" DVAL_JAVAC_JSA);
    /* the programs' JVMs get no archive of the profile's (issue 45) */
    for (int i = 0; d[i]; i++)
        CHECK(strstr(d[i], "run.jsa") == NULL);
}

TEST(test_javac_profile__embedded_sources_are_the_repository_files)
{
    CHECK_INT(decodes_to(JAVAC_SERVICE_JAVA_B64,
                         "libexec/dval-javac-service/JavacService.java"), 0);
    CHECK_INT(decodes_to(JAVAC_SERVICE_CLIENT_B64,
                         "libexec/dval-javac-service/dval-javac-client"), 0);
    CHECK_INT(decodes_to(JAVAC_SERVICE_RUN_B64,
                         "libexec/dval-javac-service/run.sh"), 0);
    CHECK_INT(decodes_to(JAVAC_SERVICE_RELAY_B64,
                         "libexec/dval-javac-service/dval-java-run"), 0);
}

TEST(test_javac_profile__commands_parse)
{
    const dval_profile *p = dval_profile_find("java");
    CHECK_STR(p->build_command, JAVA_BUILD);
    CHECK_STR(p->run_command, JAVA_RUN);
    CHECK_INT(sh_parses(p->build_command), 0);
    CHECK_INT(sh_parses(p->run_command), 0);
    CHECK_INT(system("sh -n libexec/dval-javac-service/build.sh"), 0);
    CHECK_INT(system("sh -n libexec/dval-javac-service/run.sh"), 0);
    /* the program's JVM is plain `java`: no flag of the profile's (the
     * class path: the program's, then its services' drivers) */
    CHECK(system("grep -q '^exec java -cp \"out${DVAL_CLASSPATH:+:"
                 "$DVAL_CLASSPATH}\" \"$main\"$' "
                 "libexec/dval-javac-service/run.sh") == 0);
    /* a service never runs as root, nor as a command's uid */
    CHECK_INT(sh_parses(DVAL_SERVICE_START_ROOT), 0);
    CHECK_CONTAINS(DVAL_SERVICE_START_ROOT, "setpriv --reuid=\"$u\" "
                   "--regid=\"$u\" --clear-groups");
    CHECK_CONTAINS(DVAL_JAVAC_SERVICE_CMD, "JavacService " DVAL_JAVAC_SOCK);
    CHECK(strstr(DVAL_JAVAC_SERVICE_CMD, "-proc") == NULL); /* in the code */
}
