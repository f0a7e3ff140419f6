// Validation sample for the dotnet profile: computes values, prints to
// stdout and stderr, and writes results JSON to $DVAL_RESULTS_DIR.
using System.Text.Json;

static long Fibonacci(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) (a, b) = (b, a + b);
    return a;
}

var dir = Environment.GetEnvironmentVariable("DVAL_RESULTS_DIR") ?? "results";
var fib = Fibonacci(50);
Console.WriteLine($"fibonacci(50) = {fib}");
Console.Error.WriteLine($"diagnostic: writing results to {dir}");
Directory.CreateDirectory(dir);
var results = new Dictionary<string, object>
{
    ["fibonacci_50"] = fib,
    ["runtime"] = Environment.Version.ToString(),
    ["passed"] = true,
};
File.WriteAllText(Path.Combine(dir, "results.json"), JsonSerializer.Serialize(results));
