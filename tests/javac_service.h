/* The java snapshot's compile service (libexec/dval-javac-service/), for
 * the tests and benches only: the paths, identity and command lines of
 * the java profile's build steps and run command, which
 * profiles/builtin/java.json spells out (the library uses none of these):
 * the tests check that profile against them and run its phases with them.
 * The build steps describe it as a profile service
 * (lib/profile_service.h), which the local sandbox's init or the core
 * starts.
 *
 * Layout in the snapshot (made by the build steps, as root):
 *   /opt/dval-javac/            root-owned 0755: JavacService.class, the
 *                               client, javac.jsa (CDS archive of javac),
 *                               run.sh and dval-java-run (the run command)
 *   /run/dval-javac/            owned by DVAL_JAVAC_UID, 0755: the socket.
 * DVAL_JAVAC_UID is no validation's: it is the first uid of uid range 1,
 * which the local executor gives no sandbox (sandbox_ids.h). */
#ifndef DVAL_JAVAC_SERVICE_H
#define DVAL_JAVAC_SERVICE_H

#include "profile_service.h"

#define DVAL_JAVAC_UID 1879113728L /* DVAL_SERVICE_UID_FIRST */
#define DVAL_JAVAC_UID_S "1879113728"
#define DVAL_JAVAC_DIR "/opt/dval-javac"
#define DVAL_JAVAC_RUN_DIR "/run/dval-javac"
#define DVAL_JAVAC_SOCK DVAL_JAVAC_RUN_DIR "/sock"
#define DVAL_JAVAC_CLIENT DVAL_JAVAC_DIR "/dval-javac-client"
#define DVAL_JAVAC_JSA DVAL_JAVAC_DIR "/javac.jsa"
#define DVAL_JAVAC_TEMPFAIL 75

/* The service's command line, run as DVAL_JAVAC_UID. A small heap and
 * code cache: it shares the sandbox's memory with the programs. C1 only:
 * measured here, warm compiles are as fast and steadier (no C2 compiles
 * competing for the sandbox's CPU). */
#define DVAL_JAVAC_SERVICE_CMD                                              \
    "exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData " \
    "-Xmx256m -XX:ReservedCodeCacheSize=64m -cp " DVAL_JAVAC_DIR            \
    " JavacService " DVAL_JAVAC_SOCK

/* The java profile's phases: libexec/dval-javac-service/build.sh and
 * run.sh, each under dval-java-run, which says "runtime unsupported"
 * (exit DVAL_JAVA_UNSUPPORTED) when a tool reports that the program needs
 * a newer Java than the snapshot's. */
#define DVAL_JAVA_UNSUPPORTED 78
#define JAVA_RELAY                                                          \
    "perl " DVAL_JAVAC_DIR "/dval-java-run /bin/sh " DVAL_JAVAC_DIR
#define JAVA_BUILD                                                          \
    DVAL_PROFILE_NEEDS(DVAL_JAVAC_DIR, "build.sh") "exec " JAVA_RELAY "/build.sh"
#define JAVA_RUN "exec " JAVA_RELAY "/run.sh"
/* Both phases as one command (tests, benches): the build's output on
 * stderr, as the build phase keeps its output apart from the program's */
#define JAVA_BUILD_AND_RUN JAVA_RELAY "/build.sh 1>&2 && " JAVA_RUN

#endif
