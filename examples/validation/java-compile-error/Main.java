// Deliberately broken: the java profile must report the compiler's error
// on stderr and exit non-zero without results.
public class Main {
    public static void main(String[] args) {
        int answer = "forty-two";
        System.out.println(answer)
    }
}
