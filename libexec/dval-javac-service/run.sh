# The java profile's run phase (lib/javac_service.h: JAVA_RUN), run in the
# validation's directory under dval-java-run (a class file made for a
# newer Java is the runtime_unsupported verdict): the main class, the
# first line of a MAIN_CLASS file, else Main, of what the build phase
# compiled. The program's JVM is plain `java`: the runtime's defaults,
# nothing that a program could observe. DVAL_CLASSPATH holds the class
# path entries the validation's services add (their JDBC drivers).
main=Main
if [ -f MAIN_CLASS ]; then main=$(head -n 1 MAIN_CLASS | tr -d '[:space:]'); fi
if [ -f pom.xml ]; then
    exec java -cp "target/classes:target/dependency/*${DVAL_CLASSPATH:+:$DVAL_CLASSPATH}" "$main"
fi
exec java -cp "out${DVAL_CLASSPATH:+:$DVAL_CLASSPATH}" "$main"
