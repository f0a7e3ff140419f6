// Overload resolution of nested lambdas: each level tries every
// overload with every candidate below it, 4^12 bindings in all.
static class P
{
    static int M(System.Func<int, int> f) => 0;
    static int M(System.Func<string, int> f) => 0;
    static int M(System.Func<long, int> f) => 0;
    static int M(System.Func<short, int> f) => 0;
    static void Main() => System.Console.WriteLine(M(x11 => M(x10 => M(x9 => M(x8 => M(x7 => M(x6 => M(x5 => M(x4 => M(x3 => M(x2 => M(x1 => M(x0 => 0)))))))))))));
}
