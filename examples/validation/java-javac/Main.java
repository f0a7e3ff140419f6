// Validation sample for the java profile (plain javac, no build tool).
// It computes a few values, prints progress to stdout and a diagnostic to
// stderr, and writes its results as JSON to $DVAL_RESULTS_DIR/results.json,
// which daytona-validate brings back.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

public class Main {
    static long fibonacci(int n) {
        long a = 0, b = 1;
        for (int i = 0; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return a;
    }

    static int countPrimes(int limit) {
        boolean[] composite = new boolean[limit + 1];
        int count = 0;
        for (int i = 2; i <= limit; i++) {
            if (composite[i])
                continue;
            count++;
            for (long j = (long) i * i; j <= limit; j += i)
                composite[(int) j] = true;
        }
        return count;
    }

    public static void main(String[] args) throws IOException {
        String dir = System.getenv("DVAL_RESULTS_DIR");
        if (dir == null || dir.isEmpty())
            dir = "results";
        long fib = fibonacci(50);
        int primes = countPrimes(100000);
        long sum = 0;
        for (int i = 1; i <= 1000; i++)
            sum += i;
        System.out.println("fibonacci(50) = " + fib);
        System.out.println("primes below 100000 = " + primes);
        System.out.println("sum 1..1000 = " + sum);
        System.err.println("diagnostic: writing results to " + dir);

        String json = "{\"fibonacci_50\":" + fib
            + ",\"primes_below_100000\":" + primes
            + ",\"sum_1_to_1000\":" + sum
            + ",\"java_version\":\"" + System.getProperty("java.version") + "\""
            + ",\"passed\":true}\n";
        Path out = Paths.get(dir, "results.json");
        Files.createDirectories(out.getParent());
        Files.write(out, json.getBytes(StandardCharsets.UTF_8));
    }
}
