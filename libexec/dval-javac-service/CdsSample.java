/* Run once at snapshot build time (never in a validation) to list the JDK
 * classes a typical generated program loads: collections, streams,
 * lambdas, string concatenation and formatting, records, exceptions. The
 * list becomes the snapshot's class-data-sharing archive for programs
 * (-XX:SharedArchiveFile), so their JVMs map these classes instead of
 * loading them. It reads no input and writes only to stdout. */
import java.util.*;
import java.util.function.*;
import java.util.stream.*;

public final class CdsSample {
    record Point(int x, long y) { }

    public static void main(String[] args) throws Exception {
        List<Integer> xs = new ArrayList<>();
        for (int i = 0; i < 100; i++)
            xs.add(i);
        Map<String, Long> m = new HashMap<>();
        m.put("sum", xs.stream().mapToLong(Integer::longValue).sum());
        Map<Boolean, List<Integer>> parts = xs.stream()
            .collect(Collectors.partitioningBy(i -> i % 2 == 0));
        TreeMap<String, Integer> t = new TreeMap<>(Comparator.reverseOrder());
        t.put("a", 1);
        Function<Integer, String> f = i -> "v" + i;
        Supplier<Point> p = () -> new Point(1, 2L);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%d %s %.2f%n", 1, f.apply(2), 3.0));
        sb.append(String.join(",", List.of("a", "b"))).append(p.get());
        Optional<String> o = Optional.of("x").map(String::toUpperCase);
        try {
            Objects.requireNonNull(null, "npe");
        } catch (NullPointerException e) {
            sb.append(e.getMessage());
        }
        int[] arr = IntStream.range(0, 10).map(i -> i * i).toArray();
        Arrays.sort(arr);
        Deque<Long> dq = new ArrayDeque<>(List.of(1L, 2L));
        Set<String> s = new LinkedHashSet<>(Set.of("q"));
        System.out.println(m + " " + parts.size() + t + sb + o.orElse("")
            + Arrays.toString(arr) + dq + s + Math.floorMod(-3, 5)
            + Long.parseLong("12") + new java.math.BigInteger("123").pow(3));
    }
}
