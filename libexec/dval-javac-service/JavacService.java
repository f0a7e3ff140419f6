/* The java snapshot's compile service: one long-lived JVM that compiles
 * Java sources handed over a unix socket, so a validation does not pay
 * javac's JVM start (about 1 s) on every run.
 *
 * Trust: it runs as a uid of its own (not a validation's), started by the
 * executor, never by a validation. It reads no file of a validation: the
 * client sends the sources; the class files and diagnostics go back in
 * the reply and the client writes them. It runs no code of the program:
 * annotation processing is off (-proc:none), the class and source paths
 * are empty, so only the JDK's own classes and the sent sources are seen.
 * Every request is bounded (files, names, bytes, time). A request waits
 * at most LOCK_WAIT_MS for the compiler (then "busy": its client falls
 * back to plain javac), and a compile that runs past COMPILE_MS ends the
 * service (javac cannot be stopped otherwise): a validation that hands
 * over a source made to compile for minutes holds no later one up, and
 * whoever started the service starts it again (the local sandbox's init).
 *
 * Protocol (big-endian, DataInput): "DVJ1" u32 nfiles, then per file
 * u32 namelen, name (UTF-8, relative, components [A-Za-z0-9_$.-], ends in
 * .java), u32 len, bytes. Reply: "DVJ1" u32 status (0 compiled, 1 compile
 * errors, 2 bad request), u32 len + diagnostics (javac's format), u32
 * nclasses, per class u32 namelen + "pkg/Name.class", u32 len + bytes. */
import java.io.*;
import java.net.*;
import java.nio.channels.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.*;
import java.util.concurrent.*;
import javax.tools.*;

public final class JavacService {
    static final int MAX_FILES = 1000, MAX_NAME = 512;
    static final long MAX_IN = 16L << 20, MAX_OUT = 64L << 20;
    static final long DEADLINE_MS = 30_000, LOCK_WAIT_MS = 3_000,
        COMPILE_MS = 20_000;
    static final java.util.concurrent.locks.ReentrantLock COMPILING =
        new java.util.concurrent.locks.ReentrantLock();
    /* one validation (one uid: each has its own) holds at most
     * MAX_PER_PEER connections: shared by every sandbox of a snapshot,
     * the service must not be starved by one of them */
    static final int MAX_CLIENTS = 8, MAX_PER_PEER = 2;
    static final Map<String, Integer> PEERS = new HashMap<>();
    static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();
    static final Semaphore SLOTS = new Semaphore(MAX_CLIENTS);
    static final ScheduledExecutorService WATCH =
        Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "deadline");
            t.setDaemon(true);
            return t;
        });

    public static void main(String[] args) throws Exception {
        Path sock = Paths.get(args.length > 0 ? args[0] : "/run/dval-javac/sock");
        Files.deleteIfExists(sock);
        ServerSocketChannel srv = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        srv.bind(UnixDomainSocketAddress.of(sock), 16);
        /* connecting needs write permission; the directory (0755, ours)
         * keeps anyone else from replacing the socket */
        Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rw-rw-rw-"));
        warmUp();
        for (;;) {
            SocketChannel ch = srv.accept();
            String peer = peer(ch);
            if (!SLOTS.tryAcquire()) { /* busy: the client falls back */
                ch.close();
                continue;
            }
            if (!admit(peer, 1)) {
                SLOTS.release();
                ch.close();
                continue;
            }
            Thread t = new Thread(() -> {
                try {
                    serve(ch);
                } finally {
                    admit(peer, -1);
                    SLOTS.release();
                }
            }, "client");
            t.setDaemon(true);
            t.start();
        }
    }

    /* The kernel's word for who connected (the uid, as a number where it
     * has no name) */
    static String peer(SocketChannel ch) {
        try {
            return ch.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED).user().getName();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /* PEERS's own lock: the class's is compile()'s, held for a whole
     * compile */
    static boolean admit(String peer, int d) {
        synchronized (PEERS) {
            int n = PEERS.getOrDefault(peer, 0) + d;
            if (n > MAX_PER_PEER)
                return false;
            if (n <= 0)
                PEERS.remove(peer);
            else
                PEERS.put(peer, n);
            return true;
        }
    }

    /* The first compile loads and links javac; do it before clients come. */
    static void warmUp() {
        Map<String, byte[]> src = new LinkedHashMap<>();
        src.put("W.java", ("class W { public static void main(String[] a) {"
            + " System.out.println(java.util.List.of(a).size()); } }")
            .getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 4; i++)
            compile(src, new LinkedHashMap<>(), new StringWriter());
    }

    static void serve(SocketChannel ch) {
        ScheduledFuture<?> kill = WATCH.schedule(() -> {
            try { ch.close(); } catch (IOException e) { }
        }, DEADLINE_MS, TimeUnit.MILLISECONDS);
        try (ch) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(ch)));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(ch)));
            Map<String, byte[]> src = new LinkedHashMap<>();
            String bad = readRequest(in, src);
            Map<String, byte[]> classes = new LinkedHashMap<>();
            StringWriter diag = new StringWriter();
            int status;
            if (bad != null) {
                status = 2;
                diag.write("dval-javac-service: " + bad + "\n");
            } else if (!lockCompiler()) {
                status = 2;
                diag.write("dval-javac-service: busy\n");
            } else {
                try {
                    status = compileBounded(src, classes, diag) ? 0 : 1;
                } finally {
                    COMPILING.unlock();
                }
                if (total(classes) > MAX_OUT) {
                    status = 2;
                    classes.clear();
                    diag.write("dval-javac-service: class files too large\n");
                }
            }
            writeReply(out, status, diag.toString(), classes);
        } catch (IOException | RuntimeException e) {
            /* a broken or slow client: nothing to answer */
        } finally {
            kill.cancel(false);
        }
    }

    static boolean lockCompiler() {
        try {
            return COMPILING.tryLock(LOCK_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            return false;
        }
    }

    static boolean compileBounded(Map<String, byte[]> src, Map<String, byte[]> classes,
                                  Writer diag) {
        ScheduledFuture<?> halt = WATCH.schedule(() -> Runtime.getRuntime().halt(3),
                                                 COMPILE_MS, TimeUnit.MILLISECONDS);
        try {
            return compile(src, classes, diag);
        } finally {
            halt.cancel(false);
        }
    }

    static long total(Map<String, byte[]> m) {
        long n = 0;
        for (byte[] b : m.values())
            n += b.length;
        return n;
    }

    static String readRequest(DataInputStream in, Map<String, byte[]> src) throws IOException {
        byte[] magic = new byte[4];
        in.readFully(magic);
        if (!"DVJ1".equals(new String(magic, StandardCharsets.US_ASCII)))
            return "bad magic";
        int n = in.readInt();
        if (n < 1 || n > MAX_FILES)
            return "bad file count " + n;
        long left = MAX_IN;
        for (int i = 0; i < n; i++) {
            int nl = in.readInt();
            if (nl < 1 || nl > MAX_NAME)
                return "bad name length";
            byte[] nb = new byte[nl];
            in.readFully(nb);
            String name = new String(nb, StandardCharsets.UTF_8);
            if (!validName(name))
                return "bad source name " + name;
            int len = in.readInt();
            if (len < 0 || len > left)
                return "sources too large";
            left -= len;
            byte[] b = new byte[len];
            in.readFully(b);
            if (!utf8(b)) /* javac reports these itself: the client falls back */
                return "not UTF-8: " + name;
            if (src.put(name, b) != null)
                return "duplicate source " + name;
        }
        return null;
    }

    static boolean utf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                .decode(java.nio.ByteBuffer.wrap(b));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    /* relative, no "." or ".." component, a plain character set */
    static boolean validName(String name) {
        if (!name.endsWith(".java") || name.startsWith("/"))
            return false;
        for (String c : name.split("/", -1)) {
            if (c.isEmpty() || c.equals(".") || c.equals(".."))
                return false;
            if (!c.matches("[A-Za-z0-9_$.-]+"))
                return false;
        }
        return true;
    }

    static void writeReply(DataOutputStream out, int status, String diag,
                           Map<String, byte[]> classes) throws IOException {
        out.write("DVJ1".getBytes(StandardCharsets.US_ASCII));
        out.writeInt(status);
        byte[] d = diag.getBytes(StandardCharsets.UTF_8);
        out.writeInt(d.length);
        out.write(d);
        out.writeInt(classes.size());
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            byte[] nb = e.getKey().getBytes(StandardCharsets.UTF_8);
            out.writeInt(nb.length);
            out.write(nb);
            out.writeInt(e.getValue().length);
            out.write(e.getValue());
        }
        out.flush();
    }

    /* One compile at a time: javac is not faster in parallel on the few
     * cores a sandbox has, and the memory stays bounded. The platform's
     * file manager is kept across compiles: it caches the JDK's class
     * index, which is most of a warm compile's time otherwise. It lists
     * nothing but the platform: the class, source and processor paths are
     * empty. */
    static StandardJavaFileManager std;

    static synchronized boolean compile(Map<String, byte[]> src, Map<String, byte[]> classes,
                                        Writer diag) {
        try {
            if (std == null) {
                std = JAVAC.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
                std.setLocation(StandardLocation.CLASS_PATH, List.of());
                std.setLocation(StandardLocation.SOURCE_PATH, List.of());
                std.setLocation(StandardLocation.ANNOTATION_PROCESSOR_PATH, List.of());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        MemFiles fm = new MemFiles(std, classes);
        List<JavaFileObject> units = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : src.entrySet())
            units.add(new Source(e.getKey(), new String(e.getValue(), StandardCharsets.UTF_8)));
        List<String> opts = List.of("-proc:none", "-implicit:none", "-encoding", "UTF-8");
        Boolean ok = JAVAC.getTask(diag, fm, null, opts, null, units).call();
        return ok != null && ok;
    }

    static final class Source extends SimpleJavaFileObject {
        final String name, text;
        Source(String name, String text) {
            super(URI.create("mem:///" + name), Kind.SOURCE);
            this.name = name;
            this.text = text;
        }
        @Override public String getName() { return name; }
        @Override public CharSequence getCharContent(boolean ignore) { return text; }
    }

    static final class ClassOut extends SimpleJavaFileObject {
        final String path;
        final Map<String, byte[]> sink;
        ClassOut(String path, Map<String, byte[]> sink) {
            super(URI.create("mem:///" + path), Kind.CLASS);
            this.path = path;
            this.sink = sink;
        }
        @Override public OutputStream openOutputStream() {
            return new ByteArrayOutputStream() {
                @Override public void close() { sink.put(path, toByteArray()); }
            };
        }
    }

    static final class MemFiles extends ForwardingJavaFileManager<StandardJavaFileManager> {
        final Map<String, byte[]> classes;
        MemFiles(StandardJavaFileManager std, Map<String, byte[]> classes) {
            super(std);
            this.classes = classes;
        }
        @Override public JavaFileObject getJavaFileForOutput(Location loc, String cls,
                JavaFileObject.Kind kind, FileObject sibling) throws IOException {
            if (kind != JavaFileObject.Kind.CLASS)
                throw new IOException("only class files are written");
            return new ClassOut(cls.replace('.', '/') + ".class", classes);
        }
        @Override public void close() { /* the platform manager is shared */ }
        @Override public FileObject getFileForOutput(Location loc, String pkg,
                String rel, FileObject sibling) throws IOException {
            throw new IOException("no other output is written");
        }
    }
}
