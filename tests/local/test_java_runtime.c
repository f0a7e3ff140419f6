/* The local java profile is the runtime the design names (JDK 25 on
 * Debian 13), offline: valid Java 21-25 code passes; a program that
 * needs a newer Java than the snapshot's gets "runtime unsupported"
 * (exit 78 and one line), not a compile or run error; and a program's
 * JVM is plain `java`, so it prints in the sandbox what it prints under
 * plain `java` in the same image (identity hash codes, charset, locale,
 * time zone, properties, the JVM's arguments). */
#include "lt.h"
#include "javac_service.h"

#include <stdio.h>
#include <string.h>

#define JIMG "bellsoft/liberica-openjdk-debian:25-cds"
#define PLAIN_JAVAC "export DVAL_JAVAC_SERVICE=0; "
#define UNSUPPORTED_99 "dval: runtime unsupported: needs Java 99, this " \
    "snapshot has 25; use an image with a newer JDK\n"

static const char *text(const lt_out *o, int err)
{
    const dval__buf *b = err ? &o->err : &o->out;
    return b->data ? b->data : "";
}

/* A started sandbox "j" of the java profile's local snapshot. */
static void java_sandbox(lt *t, dval_snapshot_info *info)
{
    const dval_profile *p = dval_profile_find("java");
    CHECK(p && p->local_build_commands);
    CHECK_INT(lt_snapshot(t, "java", JIMG, p->local_build_commands, info),
              DVAL_OK);
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = "java" };
    lt_sandbox(t, "j", &o);
}

static void put(lt *t, const char *dir, const char *rel, const char *data)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    CHECK_INT(lt_upload(t, "j", path, data), DVAL_OK);
}

/* Java 21 to 25 in one program: every line is the feature's result. */
static const char j25_java[] =
    "import module java.base;\n"
    "/// Markdown doc comments (23)\n"
    "public class Main {\n"
    "  sealed interface Shape permits Circle, Square { }\n"
    "  record Circle(double r) implements Shape { }\n"
    "  record Square(double side) implements Shape { }\n"
    "  record Pair<A, B>(A first, B second) { }\n"
    "  static class Base { final int v; Base(int v) { this.v = v; } }\n"
    "  static class Checked extends Base { Checked(int v) {\n"
    "    if (v < 0) throw new IllegalArgumentException(\"neg\");\n"
    "    super(v * 2); } }\n"
    "  static final ScopedValue<String> WHO = ScopedValue.newInstance();\n"
    "  static String describe(Object o) { return switch (o) {\n"
    "    case null -> \"null\";\n"
    "    case Integer i when i > 10 -> \"big \" + i;\n"
    "    case Integer i -> \"int \" + i;\n"
    "    case Pair(String a, Integer b) -> \"pair \" + a + \"=\" + b;\n"
    "    case Pair(_, _) -> \"other pair\";\n"
    "    default -> \"other\"; }; }\n"
    "  static double area(Shape s) { return switch (s) {\n"
    "    case Circle c -> 3 * c.r() * c.r();\n"
    "    case Square(var side) -> side * side; }; }\n"
    "  public static void main(String[] args) {\n"
    "    List<Integer> xs = new ArrayList<>(List.of(3, 1, 2));\n"
    "    xs.addFirst(0); xs.addLast(9);\n"
    "    System.out.println(xs.getFirst() + \" \" + xs.reversed());\n"
    "    for (Object o : new Object[] { 42, 7, new Pair<>(\"k\", 5),\n"
    "                                   new Pair<>(1, 2), null })\n"
    "      System.out.println(describe(o));\n"
    "    System.out.println(area(new Circle(1)) + \" \" + area(new Square(2)));\n"
    "    int n = 0; for (var _ : xs) n++;\n"
    "    try { Integer.parseInt(\"x\"); } catch (NumberFormatException _) {\n"
    "      System.out.println(\"n=\" + n); }\n"
    "    System.out.println(Stream.of(1, 2, 3, 4, 5)\n"
    "        .gather(Gatherers.windowFixed(2)).toList());\n"
    "    System.out.println(new Checked(21).v);\n"
    "    ScopedValue.where(WHO, \"scoped\").run(() -> System.out.println(WHO.get()));\n"
    "  } }\n";
static const char j25_out[] =
    "0 [9, 2, 1, 3, 0]\nbig 42\nint 7\npair k=5\nother pair\nnull\n"
    "3.0 4.0\nn=5\n[[1, 2], [3, 4], [5]]\n42\nscoped\n";
/* a compact source file with an instance main (25) */
static const char compact_java[] =
    "void main() { IO.println(\"compact \" + greet()); }\n"
    "String greet() { return \"Java 25\"; }\n";

TEST(test_java_runtime__java_21_to_25_passes_offline)
{
    lt t;
    lt_open(&t, "java25-code");
    dval_snapshot_info info;
    java_sandbox(&t, &info);
    /* what the snapshot says it holds is what runs */
    CHECK_CONTAINS(info.runtime, "openjdk version \"25.");
    lt_out v = { 0 };
    CHECK_INT(lt_run(&t, "j", "java -version 2>&1 | head -n 1; javac "
                     "-version", &v), 0);
    CHECK_CONTAINS(text(&v, 0), info.runtime);
    CHECK_CONTAINS(text(&v, 0), "javac 25.");
    lt_out_free(&v);
    /* through the compile service and through plain javac alike */
    const char *how[2] = { JAVA_BUILD_AND_RUN, PLAIN_JAVAC JAVA_BUILD_AND_RUN };
    for (int i = 0; i < 2; i++) {
        char d1[64], d2[64];
        snprintf(d1, sizeof d1, "/sandbox/a%d", i);
        snprintf(d2, sizeof d2, "/sandbox/c%d", i);
        put(&t, d1, "Main.java", j25_java);
        put(&t, d2, "Main.java", compact_java);
        lt_out a = { 0 }, c = { 0 };
        CHECK_INT(lt_run_in(&t, "j", d1, how[i], &a), 0);
        CHECK_STR(text(&a, 0), j25_out);
        CHECK_INT(lt_run_in(&t, "j", d2, how[i], &c), 0);
        CHECK_STR(text(&c, 0), "compact Java 25\n");
        lt_out_free(&a);
        lt_out_free(&c);
    }
    lt_close(&t);
}

/* A program that loads a class file made for Java 99 (class file
 * version 143): the JVM's UnsupportedClassVersionError becomes the one
 * line and exit 78; what the program printed before stays. */
static const char newer_java[] =
    "import java.net.*;\nimport java.nio.file.*;\n"
    "public class Main { public static void main(String[] a) throws "
    "Exception {\n  System.out.println(\"before\");\n"
    "  URLClassLoader l = new URLClassLoader(new URL[] { "
    "Path.of(\"lib\").toUri().toURL() });\n"
    "  System.out.println(l.loadClass(\"Newer\").getDeclaredConstructor()"
    ".newInstance()); } }\n";

TEST(test_java_runtime__a_newer_class_file_is_runtime_unsupported)
{
    lt t;
    lt_open(&t, "java25-newer");
    java_sandbox(&t, NULL);
    put(&t, "/sandbox/n", "Main.java", newer_java);
    put(&t, "/sandbox/n", "lib/Newer.java", "public class Newer { }\n");
    lt_out o = { 0 };
    /* compiled here, then marked version 143 (bytes 6-7 of the file) */
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/n", "javac -d lib lib/Newer.java "
                        "&& rm lib/Newer.java && printf '\\000\\217' | dd "
                        "of=lib/Newer.class bs=1 seek=6 conv=notrunc "
                        "2>/dev/null", &o), 0);
    lt_out_free(&o);
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/n", JAVA_BUILD_AND_RUN, &o),
              DVAL_JAVA_UNSUPPORTED);
    CHECK_STR(text(&o, 0), "before\n");
    CHECK_CONTAINS(text(&o, 1), "UnsupportedClassVersionError");
    const char *e = text(&o, 1);
    size_t n = strlen(e), k = strlen(UNSUPPORTED_99);
    CHECK(n >= k && !strcmp(e + n - k, UNSUPPORTED_99));
    CHECK(strstr(e, "dval: runtime") == e + n - k); /* one line */
    lt_out_free(&o);
    lt_close(&t);
}

/* The run command's relay on javac's own words: --release 99 is
 * "runtime unsupported"; --release 7 (too old, the same "not supported")
 * and a plain failure keep their exit code and get no line. */
TEST(test_java_runtime__javac_release_99_is_runtime_unsupported)
{
    lt t;
    lt_open(&t, "java25-release");
    java_sandbox(&t, NULL);
    put(&t, "/sandbox/r", "X.java", "class X { }\n");
    static const char relay[] = "exec perl " DVAL_JAVAC_DIR "/dval-java-run ";
    lt_out o = { 0 };
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%sjavac --release 99 -d o X.java", relay);
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/r", cmd, &o),
              DVAL_JAVA_UNSUPPORTED);
    CHECK_CONTAINS(text(&o, 1), "release version 99 not supported\n");
    CHECK_CONTAINS(text(&o, 1), UNSUPPORTED_99);
    lt_out_free(&o);
    snprintf(cmd, sizeof cmd, "%sjavac --release 7 -d o X.java", relay);
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/r", cmd, &o), 2);
    CHECK_CONTAINS(text(&o, 1), "release version 7 not supported");
    CHECK(!strstr(text(&o, 1), "dval:"));
    lt_out_free(&o);
    snprintf(cmd, sizeof cmd, "%ssh -c 'echo oops >&2; exit 3'", relay);
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/r", cmd, &o), 3);
    CHECK_STR(text(&o, 1), "oops\n");
    lt_out_free(&o);
    lt_close(&t);
}

/* What a program can observe of its runtime: identity hash codes (a
 * HashSet of objects without hashCode(), as issue 45's Kruskal program
 * keeps its edges), the default charset, locale and time zone, its
 * properties and the JVM's own arguments. */
static const char observe_java[] =
    "import java.lang.management.ManagementFactory;\n"
    "import java.nio.charset.Charset;\nimport java.time.*;\n"
    "import java.time.format.*;\nimport java.util.*;\n"
    "public class Main {\n"
    "  static final class Edge { final int a, b;\n"
    "    Edge(int a, int b) { this.a = a; this.b = b; }\n"
    "    public String toString() { return a + \"-\" + b; } }\n"
    "  public static void main(String[] args) {\n"
    "    Set<Edge> edges = new HashSet<>();\n"
    "    for (int i = 0; i < 12; i++) edges.add(new Edge(i, (i * 7 + 3) % 12));\n"
    "    System.out.println(\"edges \" + edges);\n"
    "    System.out.println(\"hash \" + new Object().hashCode() + \" \"\n"
    "        + System.identityHashCode(edges));\n"
    "    System.out.println(\"charset \" + Charset.defaultCharset());\n"
    "    System.out.println(\"locale \" + Locale.getDefault() + \" \"\n"
    "        + String.format(\"%,.2f\", 1234567.891));\n"
    "    System.out.println(\"zone \" + ZoneId.systemDefault() + \" \"\n"
    "        + ZonedDateTime.ofInstant(Instant.ofEpochSecond(1700000000L),\n"
    "            ZoneId.systemDefault()).format(\n"
    "            DateTimeFormatter.ofLocalizedDateTime(FormatStyle.MEDIUM)));\n"
    "    System.out.println(\"jvm args \"\n"
    "        + ManagementFactory.getRuntimeMXBean().getInputArguments());\n"
    "    Properties p = System.getProperties();\n"
    "    for (String k : new TreeSet<>(p.stringPropertyNames()))\n"
    "      if (!k.equals(\"user.dir\") && !k.equals(\"user.home\"))\n"
    "        System.out.println(\"prop \" + k + \"=\" + p.getProperty(k));\n"
    "  } }\n";

TEST(test_java_runtime__a_program_sees_the_plain_runtime)
{
    lt t;
    lt_open(&t, "java25-plain");
    java_sandbox(&t, NULL);
    put(&t, "/sandbox/v", "Main.java", observe_java);
    put(&t, "/sandbox/p", "Main.java", observe_java);
    lt_out v = { 0 }, p = { 0 };
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/v", JAVA_BUILD_AND_RUN, &v), 0);
    /* plain javac + java, a separate command in the same sandbox */
    CHECK_INT(lt_run_in(&t, "j", "/sandbox/p", "javac -d out Main.java && "
                        "java -cp out Main", &p), 0);
    CHECK_CONTAINS(text(&v, 0), "\njvm args []\n");
    CHECK_CONTAINS(text(&v, 0), "\nprop java.version=25.");
    CHECK_STR(text(&v, 0), text(&p, 0));
    lt_out_free(&v);
    lt_out_free(&p);
    lt_close(&t);
}
