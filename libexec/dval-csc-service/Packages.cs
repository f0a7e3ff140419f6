/* The snapshot's package set, read once from the project.assets.json that
 * the snapshot build's restore wrote: for each package its version, its
 * dependencies, and the files a program compiles against (compile), loads
 * (runtime, native) and the source generators it ships (analyzers).
 * Paths are absolute, inside the snapshot's package folder: the service
 * never reads a file a request names. */
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;

sealed class Package
{
    public string Id = "", Version = "";
    public List<string> Dependencies = new();
    public List<string> Compile = new(), Runtime = new(), Native = new(),
        Generators = new();
}

sealed class PackageSet
{
    /* RID fallback of this host (linux-x64), most specific first */
    static readonly string[] Rids = { "linux-x64", "linux", "unix", "any" };
    readonly Dictionary<string, Package> byId = new(System.StringComparer.OrdinalIgnoreCase);

    public static PackageSet Load(string assetsPath, string packagesDir)
    {
        var set = new PackageSet();
        if (!File.Exists(assetsPath))
            return set;
        using var doc = JsonDocument.Parse(File.ReadAllBytes(assetsPath));
        var root = doc.RootElement;
        var libs = root.GetProperty("libraries");
        foreach (var tfm in root.GetProperty("targets").EnumerateObject()) {
            foreach (var p in tfm.Value.EnumerateObject()) {
                if (p.Value.GetProperty("type").GetString() != "package")
                    continue;
                var lib = libs.GetProperty(p.Name);
                set.Add(p.Name, p.Value, lib, packagesDir);
            }
            break; /* the one target framework the snapshot restores */
        }
        return set;
    }

    void Add(string key, JsonElement target, JsonElement lib, string packagesDir)
    {
        int slash = key.IndexOf('/');
        var pkg = new Package { Id = key[..slash], Version = key[(slash + 1)..] };
        string dir = Path.Combine(packagesDir, lib.GetProperty("path").GetString()!);
        if (target.TryGetProperty("dependencies", out var deps))
            foreach (var d in deps.EnumerateObject())
                pkg.Dependencies.Add(d.Name);
        pkg.Compile.AddRange(Assets(target, "compile", dir));
        pkg.Runtime.AddRange(RidSpecific(target, "runtime", dir) ?? Assets(target, "runtime", dir));
        pkg.Native.AddRange(RidSpecific(target, "native", dir) ?? Assets(target, "native", dir));
        pkg.Generators.AddRange(Generators(lib, dir));
        byId[pkg.Id] = pkg;
    }

    static IEnumerable<string> Assets(JsonElement target, string kind, string dir)
    {
        if (!target.TryGetProperty(kind, out var a))
            return Enumerable.Empty<string>();
        return a.EnumerateObject().Where(f => !f.Name.EndsWith("/_._"))
            .Select(f => Path.Combine(dir, f.Name)).ToList();
    }

    /* runtimeTargets of the most specific RID this host runs, or null */
    static List<string>? RidSpecific(JsonElement target, string assetType, string dir)
    {
        if (!target.TryGetProperty("runtimeTargets", out var rt))
            return null;
        foreach (var rid in Rids) {
            var hits = rt.EnumerateObject().Where(f =>
                f.Value.GetProperty("assetType").GetString() == assetType &&
                f.Value.GetProperty("rid").GetString() == rid &&
                !f.Name.EndsWith("/_._"))
                .Select(f => Path.Combine(dir, f.Name)).ToList();
            if (hits.Count > 0)
                return hits;
        }
        return null;
    }

    /* analyzers/dotnet/[roslynX.Y/]cs/*.dll: the highest roslyn folder the
     * compiler supports, else the unversioned one (NuGet's rule) */
    static IEnumerable<string> Generators(JsonElement lib, string dir)
    {
        if (!lib.TryGetProperty("files", out var files))
            return Enumerable.Empty<string>();
        var all = files.EnumerateArray().Select(f => f.GetString()!)
            .Where(f => f.StartsWith("analyzers/dotnet/") && f.EndsWith(".dll") &&
                        f.Split('/').Length >= 4 && f.Split('/')[^2] == "cs")
            .ToList();
        var versioned = all.Where(f => f.Split('/')[2].StartsWith("roslyn"))
            .GroupBy(f => f.Split('/')[2])
            .Select(g => (v: System.Version.TryParse(g.Key[6..], out var v) ? v : null, files: g.ToList()))
            .Where(g => g.v != null && g.v <= Compiler.RoslynVersion)
            .OrderByDescending(g => g.v).FirstOrDefault();
        var chosen = versioned.files ?? all.Where(f => f.Split('/').Length == 4).ToList();
        return chosen.Select(f => Path.Combine(dir, f));
    }

    public Package? Find(string id) => byId.TryGetValue(id, out var p) ? p : null;

    /* The package and everything it depends on, each once. */
    public List<Package> Closure(IEnumerable<Package> roots)
    {
        var seen = new HashSet<string>(System.StringComparer.OrdinalIgnoreCase);
        var order = new List<Package>();
        var stack = new Stack<Package>(roots);
        while (stack.Count > 0) {
            var p = stack.Pop();
            if (!seen.Add(p.Id))
                continue;
            order.Add(p);
            foreach (var d in p.Dependencies)
                if (Find(d) is { } dp)
                    stack.Push(dp);
        }
        return order;
    }

    public IEnumerable<Package> All => byId.Values;
}
