# The java profile's build phase (lib/javac_service.h: JAVA_BUILD), run
# in the validation's directory under dval-java-run, which turns the
# tools' "needs a newer Java" into the runtime_unsupported verdict.
#
# Maven tries offline first (a warm ~/.m2 needs no network), then online.
# Plain sources go to the compile service when one answers (the client
# checks it is the service; exit 75 otherwise; DVAL_JAVAC_SERVICE=0 skips
# it), else to javac, with the same file names (so the same diagnostics).
# javac is a short-lived JVM: C1 only, the serial GC and the snapshot's
# CDS archive of javac cut its start (its logging off: JDK 25 reports on
# stdout that it keeps the archive without its module optimisation).
# DVAL_JAVAC_TRACE=1 names the compiler that answered.
D=/opt/dval-javac
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
    mvn -q -o -DskipTests package || mvn -q -DskipTests package
else
    rm -rf out && mkdir -p out &&
        dval_javac $(find . -name '*.java' ! -path './out/*' |
                     sed 's|^\./||' | LC_ALL=C sort)
fi
