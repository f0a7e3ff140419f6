// Maven variant of the java validation sample: same contract as
// java-javac/Main.java (results JSON in $DVAL_RESULTS_DIR).
package example;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

public class App {
    public static void main(String[] args) throws IOException {
        String dir = System.getenv("DVAL_RESULTS_DIR");
        if (dir == null || dir.isEmpty())
            dir = "results";
        long product = 1;
        for (int i = 1; i <= 20; i++)
            product *= i;
        System.out.println("20! = " + product);
        System.err.println("diagnostic: built with maven");
        Path out = Paths.get(dir, "results.json");
        Files.createDirectories(out.getParent());
        Files.write(out, ("{\"factorial_20\":" + product + ",\"passed\":true}\n")
            .getBytes(StandardCharsets.UTF_8));
    }
}
