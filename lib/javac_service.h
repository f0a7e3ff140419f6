/* The java snapshot's compile service (libexec/dval-javac-service/): the
 * paths, identity and command lines shared by the java profile's build
 * steps and run command (lib/profile.c) and the tests. The build steps
 * describe it as a profile service (lib/profile_service.h), which the
 * local sandbox's init or the core starts.
 *
 * Layout in the snapshot (made by the build steps, as root):
 *   /opt/dval-javac/            root-owned 0755: JavacService.class, the
 *                               client, javac.jsa (CDS archive of javac)
 *   /run/dval-javac/            owned by DVAL_JAVAC_UID, 0755: the socket.
 * DVAL_JAVAC_UID is no validation's: it is the first uid of uid range 1,
 * which the local executor gives no sandbox (sandbox_ids.h). */
#ifndef DVAL_JAVAC_SERVICE_H
#define DVAL_JAVAC_SERVICE_H

#define DVAL_JAVAC_UID 1879113728L /* DVAL_SERVICE_UID_FIRST */
#define DVAL_JAVAC_UID_S "1879113728"
#define DVAL_JAVAC_DIR "/opt/dval-javac"
#define DVAL_JAVAC_RUN_DIR "/run/dval-javac"
#define DVAL_JAVAC_SOCK DVAL_JAVAC_RUN_DIR "/sock"
#define DVAL_JAVAC_CLIENT DVAL_JAVAC_DIR "/dval-javac-client"
#define DVAL_JAVAC_JSA DVAL_JAVAC_DIR "/javac.jsa"
/* static CDS archive for the programs' JVMs (from CdsSample.java) */
#define DVAL_JAVAC_RUN_JSA DVAL_JAVAC_DIR "/run.jsa"
#define DVAL_JAVAC_TEMPFAIL 75

/* The service's command line, run as DVAL_JAVAC_UID. A small heap and
 * code cache: it shares the sandbox's memory with the programs. C1 only:
 * measured here, warm compiles are as fast and steadier (no C2 compiles
 * competing for the sandbox's CPU). */
#define DVAL_JAVAC_SERVICE_CMD                                              \
    "exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData " \
    "-Xmx256m -XX:ReservedCodeCacheSize=64m -cp " DVAL_JAVAC_DIR            \
    " JavacService " DVAL_JAVAC_SOCK

/* Class path entries the validation's services add (their JDBC drivers:
 * lib/service_spec.h), after the program's own. */
#define DVAL_JAVA_CLASSPATH_MORE "${DVAL_CLASSPATH:+:$DVAL_CLASSPATH}"

/* The java profile's run command; `use` is a shell condition for trying
 * the service ("false": plain javac only, as the tests compare). With
 * DVAL_JAVAC_TRACE=1 it names the compiler that answered on stderr. */
#define JAVA_RUN_WITH(use)                                                  \
    "main=Main; if [ -f MAIN_CLASS ]; then "                                \
    "main=$(head -n 1 MAIN_CLASS | tr -d '[:space:]'); fi; "                \
    "dval_javac() { if " use "; then " DVAL_JAVAC_CLIENT " "                \
    DVAL_JAVAC_SOCK " out \"$@\"; c=$?; if [ $c -ne 75 ]; then "            \
    "[ \"${DVAL_JAVAC_TRACE:-}\" = 1 ] && echo 'dval-javac: service'; "     \
    "return $c; fi; rm -rf out && mkdir -p out || return 1; fi; "           \
    "[ \"${DVAL_JAVAC_TRACE:-}\" = 1 ] && echo 'dval-javac: javac'; "       \
    "cds=; [ -f " DVAL_JAVAC_JSA " ] && "                                   \
    "cds=-J-XX:SharedArchiveFile=" DVAL_JAVAC_JSA "; "                      \
    "javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC $cds -d out \"$@\"; }; " \
    "if [ -f pom.xml ]; then "                                              \
    "{ mvn -q -o -DskipTests package || mvn -q -DskipTests package; } 1>&2 " \
    "&& exec java -cp \"target/classes:target/dependency/*" DVAL_JAVA_CLASSPATH_MORE \
    "\" \"$main\"; "                                                        \
    "else rm -rf out && mkdir -p out && "                                   \
    "dval_javac $(find . -name '*.java' ! -path './out/*' | "               \
    "sed 's|^\\./||' | LC_ALL=C sort) 1>&2 && { "                           \
    "rcds=; [ -f " DVAL_JAVAC_RUN_JSA " ] && "                              \
    "rcds=-XX:SharedArchiveFile=" DVAL_JAVAC_RUN_JSA "; "                   \
    "exec java $rcds -cp \"out" DVAL_JAVA_CLASSPATH_MORE "\" \"$main\"; }; fi"

#endif
