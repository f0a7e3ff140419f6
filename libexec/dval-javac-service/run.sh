# The java profile's build and run phases, run by its run command
# (lib/javac_service.h: JAVA_RUN) in the validation's directory under
# dval-java-run. Build output goes to stderr: the program's stdout
# carries only what the program printed.
#
# Main class: the first line of a MAIN_CLASS file, else Main. Maven tries
# offline first (a warm ~/.m2 needs no network), then online. Plain
# sources go to the compile service when one answers (the client checks
# it is the service; exit 75 otherwise; DVAL_JAVAC_SERVICE=0 skips it),
# else to javac, with the same file names (so the same diagnostics).
# javac is a short-lived JVM: C1 only, the serial GC and the snapshot's
# CDS archive of javac cut its start (its logging off: JDK 25 reports
# on stdout that it keeps the archive without its module optimisation).
# The program's own JVM is plain
# `java`: the runtime's defaults, nothing that a program could observe.
# DVAL_JAVAC_TRACE=1 names the compiler that answered on stderr.
D=/opt/dval-javac
main=Main
if [ -f MAIN_CLASS ]; then main=$(head -n 1 MAIN_CLASS | tr -d '[:space:]'); fi
trace() { if [ "${DVAL_JAVAC_TRACE:-}" = 1 ]; then echo "dval-javac: $1"; fi; }
dval_javac() {
    if [ "${DVAL_JAVAC_SERVICE:-1}" != 0 ] && [ -x $D/dval-javac-client ]; then
        $D/dval-javac-client /run/dval-javac/sock out "$@"
        c=$?
        if [ $c -ne 75 ]; then trace service; return $c; fi
        rm -rf out && mkdir -p out || return 1
    fi
    trace javac
    cds=
    if [ -f $D/javac.jsa ]; then
        cds="-J-XX:SharedArchiveFile=$D/javac.jsa -J-Xlog:cds=off"
    fi
    javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC $cds -d out "$@"
}
if [ -f pom.xml ]; then
    { mvn -q -o -DskipTests package || mvn -q -DskipTests package; } 1>&2 &&
        exec java -cp 'target/classes:target/dependency/*' "$main"
else
    rm -rf out && mkdir -p out &&
        dval_javac $(find . -name '*.java' ! -path './out/*' |
                     sed 's|^\./||' | LC_ALL=C sort) 1>&2 &&
        exec java -cp out "$main"
fi
