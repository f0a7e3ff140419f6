// Validation sample for the dotnet profile that does not compile: the
// validation reports the compiler's diagnostics (file, line, CS code).
var total = Sum(new[] { 1, 2, 3 });
Console.WriteLine($"total = {total}");
string label = total;

static int Sum(int[] xs) => xs.Sum();
