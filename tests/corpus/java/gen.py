#!/usr/bin/python3
"""Writes the Java corpus: gen.py OUTDIR -> OUTDIR/<kernel>-<k>/Main.java.

Deterministic programs of the kinds validations carry (graphs, sorting,
dynamic programming, text, numbers, collections, records and patterns),
each kernel in VARIANTS sizes/seeds. Several print what depends on the
runtime rather than on the program alone: identity hash codes (a HashSet
of objects without hashCode(), as issue 45's Kruskal program kept its
edges), the default charset, locale and time zone, floating-point
formatting. So the sandbox must print byte for byte what plain `java`
prints in the same image. Written for this project (no third-party code).
"""
import os
import sys

VARIANTS = 9

KERNELS = {}


def kernel(name):
    def add(f):
        KERNELS[name] = f
        return f
    return add


@kernel("kruskal")
def _(k):
    return """import java.util.*;
public class Main {
  static final class Edge { final int a, b, w; Edge(int a, int b, int w) { this.a = a; this.b = b; this.w = w; }
    public String toString() { return a + "-" + b + ":" + w; } }
  static int[] parent;
  static int find(int x) { return parent[x] == x ? x : (parent[x] = find(parent[x])); }
  public static void main(String[] args) {
    int n = %d; Set<Edge> edges = new HashSet<>(); long seed = %d;
    for (int i = 0; i < n * 3; i++) { seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      edges.add(new Edge(i %% n, (int) (seed %% n), (int) (seed %% 97))); }
    System.out.println("edges " + edges);
    List<Edge> sorted = new ArrayList<>(edges); sorted.sort(Comparator.comparingInt(e -> e.w));
    parent = new int[n]; for (int i = 0; i < n; i++) parent[i] = i;
    List<Edge> mst = new ArrayList<>(); long total = 0;
    for (Edge e : sorted) { int x = find(e.a), y = find(e.b); if (x != y) { parent[x] = y; mst.add(e); total += e.w; } }
    System.out.println("mst " + mst.size() + " weight " + total);
  } }
""" % (6 + k * 3, 17 + k)


@kernel("wordcount")
def _(k):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    text = " ".join(words[(i * (k + 3)) % len(words)] for i in range(40 + k * 7))
    return """import java.util.*;
public class Main { public static void main(String[] args) {
  String text = "%s";
  Map<String, Integer> counts = new HashMap<>();
  for (String w : text.split(" ")) counts.merge(w, 1, Integer::sum);
  System.out.println(counts);
  System.out.println(new TreeMap<>(counts).descendingMap());
  System.out.println(counts.keySet().stream().sorted(Comparator.comparing(String::length).thenComparing(Comparator.reverseOrder())).toList());
} }
""" % text


@kernel("sorts")
def _(k):
    return """import java.util.*;
public class Main {
  static void merge(int[] a, int lo, int hi, int[] t) { if (hi - lo < 2) return; int m = (lo + hi) >>> 1;
    merge(a, lo, m, t); merge(a, m, hi, t); int i = lo, j = m, o = lo;
    while (i < m || j < hi) t[o++] = j >= hi || (i < m && a[i] <= a[j]) ? a[i++] : a[j++];
    System.arraycopy(t, lo, a, lo, hi - lo); }
  static void quick(int[] a, int lo, int hi) { if (lo >= hi) return; int p = a[(lo + hi) >>> 1], i = lo, j = hi;
    while (i <= j) { while (a[i] < p) i++; while (a[j] > p) j--; if (i <= j) { int x = a[i]; a[i++] = a[j]; a[j--] = x; } }
    quick(a, lo, j); quick(a, i, hi); }
  public static void main(String[] args) {
    Random r = new Random(%d); int n = %d; int[] a = new int[n];
    for (int i = 0; i < n; i++) a[i] = r.nextInt(1000) - 500;
    int[] b = a.clone(), c = a.clone(); merge(b, 0, n, new int[n]); quick(c, 0, n - 1); Arrays.sort(a);
    System.out.println(Arrays.equals(a, b) + " " + Arrays.equals(a, c));
    System.out.println(Arrays.toString(Arrays.copyOf(b, Math.min(20, n))));
    System.out.println(Arrays.stream(b).summaryStatistics());
  } }
""" % (k * 31 + 7, 200 + k * 150)


@kernel("primes")
def _(k):
    return """import java.util.*;
import java.util.stream.*;
public class Main { public static void main(String[] args) {
  int n = %d; boolean[] comp = new boolean[n + 1]; List<Integer> ps = new ArrayList<>();
  for (int i = 2; i <= n; i++) { if (comp[i]) continue; ps.add(i); for (long j = (long) i * i; j <= n; j += i) comp[(int) j] = true; }
  System.out.println(ps.size() + " primes, last " + ps.subList(ps.size() - 5, ps.size()));
  System.out.println(IntStream.rangeClosed(2, 60).filter(i -> !comp[i]).boxed().collect(Collectors.groupingBy(i -> i %% 10)));
  System.out.printf("density %%.6f%%n", ps.size() / (double) n);
} }
""" % (1000 * (k + 1) * (k + 1))


@kernel("editdistance")
def _(k):
    pairs = [("kitten", "sitting"), ("flaw", "lawn"), ("intention", "execution"), ("sunday", "saturday"),
             ("gumbo", "gambol"), ("book", "back"), ("algorithm", "altruistic"), ("abcdef", "azced"), ("hello", "yellow")]
    a, b = pairs[k % len(pairs)]
    return """public class Main {
  static int lev(String a, String b) { int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) d[i][0] = i; for (int j = 0; j <= b.length(); j++) d[0][j] = j;
    for (int i = 1; i <= a.length(); i++) for (int j = 1; j <= b.length(); j++)
      d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
    return d[a.length()][b.length()]; }
  static String lcs(String a, String b) { int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = a.length() - 1; i >= 0; i--) for (int j = b.length() - 1; j >= 0; j--)
      d[i][j] = a.charAt(i) == b.charAt(j) ? 1 + d[i + 1][j + 1] : Math.max(d[i + 1][j], d[i][j + 1]);
    StringBuilder s = new StringBuilder(); int i = 0, j = 0;
    while (i < a.length() && j < b.length()) { if (a.charAt(i) == b.charAt(j)) { s.append(a.charAt(i)); i++; j++; }
      else if (d[i + 1][j] >= d[i][j + 1]) i++; else j++; }
    return s.toString(); }
  public static void main(String[] args) { String a = "%s", b = "%s";
    System.out.println(a + " -> " + b + ": " + lev(a, b) + " lcs=" + lcs(a, b));
    System.out.println(new StringBuilder(a + b).reverse() + " " + (a + b).chars().distinct().count()); } }
""" % (a, b)


@kernel("bignum")
def _(k):
    return """import java.math.*;
public class Main { public static void main(String[] args) {
  BigInteger f = BigInteger.ONE; for (int i = 2; i <= %d; i++) f = f.multiply(BigInteger.valueOf(i));
  System.out.println(f.bitLength() + " " + f.toString().length() + " " + f.mod(BigInteger.valueOf(1000000007)));
  BigInteger a = BigInteger.ZERO, b = BigInteger.ONE; for (int i = 0; i < %d; i++) { BigInteger t = a.add(b); a = b; b = t; }
  System.out.println(a);
  System.out.println(new BigDecimal(2).sqrt(new MathContext(%d)) + " " + BigDecimal.ONE.divide(new BigDecimal(7), 30, RoundingMode.HALF_EVEN));
} }
""" % (50 + 40 * k, 80 + 20 * k, 20 + k * 5)


@kernel("formats")
def _(k):
    return """import java.nio.charset.Charset;
import java.time.*;
import java.time.format.*;
import java.util.*;
public class Main { public static void main(String[] args) {
  double x = %d.0 / 7.0;
  System.out.println(String.format("%%,.3f %%e %%g %%a", x * 1e6, x, x, x));
  System.out.println(Locale.getDefault() + " " + Charset.defaultCharset() + " " + TimeZone.getDefault().getID());
  System.out.println(ZonedDateTime.ofInstant(Instant.ofEpochSecond(%dL), ZoneId.systemDefault()).format(DateTimeFormatter.ofLocalizedDateTime(FormatStyle.FULL, FormatStyle.MEDIUM)));
  System.out.println(Double.toString(x) + " " + Float.toString((float) x) + " " + Math.sin(x) + " " + Math.exp(x) + " " + StrictMath.cbrt(x));
  System.out.println("na\\u00efve caf\\u00e9 \\u2713 " + "\\u00c4rger".toUpperCase() + " " + "STRASSE".toLowerCase() + " " + "\\u00df".toUpperCase());
} }
""" % (k * 13 + 1, 1600000000 + k * 86400 * 37)


@kernel("dijkstra")
def _(k):
    return """import java.util.*;
public class Main { record Arc(int to, int w) { }
  public static void main(String[] args) {
    int n = %d; Random r = new Random(%d); List<List<Arc>> g = new ArrayList<>();
    for (int i = 0; i < n; i++) g.add(new ArrayList<>());
    for (int i = 0; i < n * 4; i++) { int a = r.nextInt(n), b = r.nextInt(n); g.get(a).add(new Arc(b, 1 + r.nextInt(20))); }
    long[] d = new long[n]; Arrays.fill(d, Long.MAX_VALUE); d[0] = 0;
    PriorityQueue<long[]> q = new PriorityQueue<>(Comparator.comparingLong(e -> e[0])); q.add(new long[] { 0, 0 });
    while (!q.isEmpty()) { long[] e = q.poll(); int u = (int) e[1]; if (e[0] > d[u]) continue;
      for (Arc a : g.get(u)) if (d[u] + a.w() < d[a.to()]) { d[a.to()] = d[u] + a.w(); q.add(new long[] { d[a.to()], a.to() }); } }
    System.out.println(Arrays.toString(Arrays.stream(d).map(v -> v == Long.MAX_VALUE ? -1 : v).toArray()));
    System.out.println(g.get(0));
  } }
""" % (10 + k * 4, 1000 + k)


@kernel("queens")
def _(k):
    return """public class Main {
  static int n = %d, count; static int[] first;
  static void place(int row, int cols, int d1, int d2, int[] pos) {
    if (row == n) { if (count++ == 0) first = pos.clone(); return; }
    for (int c = 0; c < n; c++) { if ((cols >> c & 1) != 0 || (d1 >> (row + c) & 1) != 0 || (d2 >> (row - c + n) & 1) != 0) continue;
      pos[row] = c; place(row + 1, cols | 1 << c, d1 | 1 << (row + c), d2 | 1 << (row - c + n), pos); } }
  public static void main(String[] args) { place(0, 0, 0, 0, new int[n]);
    System.out.println(n + " queens: " + count + " first " + java.util.Arrays.toString(first)); } }
""" % (4 + k % 6)


@kernel("shapes")
def _(k):
    return """import java.util.*;
import java.util.stream.*;
public class Main {
  sealed interface Shape permits Circle, Rect, Tri { }
  record Circle(double r) implements Shape { }
  record Rect(double w, double h) implements Shape { }
  record Tri(double b, double h) implements Shape { }
  static double area(Shape s) { return switch (s) { case Circle(var r) -> Math.PI * r * r; case Rect(double w, double h) -> w * h; case Tri t -> t.b() * t.h() / 2; }; }
  static String kind(Object o) { return switch (o) { case Circle c when c.r() > 2 -> "big circle"; case Circle c -> "circle";
    case Rect(var w, var h) when w == h -> "square"; case Shape s -> s.getClass().getSimpleName().toLowerCase(); default -> "?"; }; }
  public static void main(String[] args) { Random r = new Random(%d); List<Shape> shapes = new ArrayList<>();
    for (int i = 0; i < %d; i++) shapes.add(switch (r.nextInt(3)) { case 0 -> new Circle(r.nextInt(4) + 1); case 1 -> new Rect(r.nextInt(3) + 1, r.nextInt(3) + 1); default -> new Tri(r.nextInt(5) + 1, 2); });
    Map<String, Double> byKind = shapes.stream().collect(Collectors.groupingBy(Main::kind, TreeMap::new, Collectors.summingDouble(Main::area)));
    System.out.println(byKind);
    System.out.println(shapes.reversed().getFirst() + " " + shapes.stream().mapToDouble(Main::area).max().orElse(0));
  } }
""" % (k * 7 + 3, 8 + k * 3)


@kernel("identity")
def _(k):
    return """import java.util.*;
public class Main { static final class Node { final int v; Node(int v) { this.v = v; } public String toString() { return "n" + v; } }
  public static void main(String[] args) { List<Object> xs = new ArrayList<>();
    for (int i = 0; i < %d; i++) xs.add(i %% 2 == 0 ? new Node(i) : new Object());
    Set<Object> set = new HashSet<>(xs); Map<Object, Integer> m = new IdentityHashMap<>();
    for (Object o : xs) m.put(o, m.size());
    System.out.println(set.size() + " " + xs.stream().filter(o -> o instanceof Node).map(System::identityHashCode).toList());
    System.out.println(new HashSet<>(xs.subList(0, Math.min(8, xs.size()))));
    System.out.println(Integer.toHexString(new Object().hashCode()) + " " + m.values().stream().mapToInt(Integer::intValue).sum());
  } }
""" % (5 + k * 2)


@kernel("knapsack")
def _(k):
    return """import java.util.*;
public class Main { public static void main(String[] args) {
  Random r = new Random(%d); int n = %d, cap = %d; int[] w = new int[n], v = new int[n];
  for (int i = 0; i < n; i++) { w[i] = 1 + r.nextInt(20); v[i] = 1 + r.nextInt(50); }
  int[] best = new int[cap + 1]; for (int i = 0; i < n; i++) for (int c = cap; c >= w[i]; c--) best[c] = Math.max(best[c], best[c - w[i]] + v[i]);
  System.out.println(Arrays.toString(w) + "\\n" + Arrays.toString(v) + "\\nbest " + best[cap]);
  long ways[] = new long[cap + 1]; ways[0] = 1; for (int c : new int[] { 1, 2, 5, 10, 20, 50 }) for (int s = c; s <= cap; s++) ways[s] += ways[s - c];
  System.out.println("change ways " + ways[cap]);
} }
""" % (k + 11, 8 + k * 2, 30 + k * 10)


def main():
    out = sys.argv[1]
    for name, make in sorted(KERNELS.items()):
        for k in range(VARIANTS):
            d = os.path.join(out, "%s-%d" % (name, k))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "Main.java"), "w", encoding="utf-8") as f:
                f.write(make(k))


if __name__ == "__main__":
    main()
