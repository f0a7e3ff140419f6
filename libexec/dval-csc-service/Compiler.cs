/* Compiles one request as `dotnet build` (Debug) would compile its
 * project: the same compiler (the SDK's Roslyn), the same options (csc's
 * own command-line parser, given the arguments MSBuild passes), the
 * same generated files (global usings, assembly attributes), the SDK's
 * source generators and the packages' ones, references from the
 * snapshot alone. Metadata references and generators are loaded once
 * and shared by every request: that, not the compiler, is most of a
 * cold csc run. Diagnostic analyzers (warnings only) are not run. */
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.Loader;
using System.Text;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Text;

sealed class Output
{
    public int Status;                 /* 0 compiled, 1 errors */
    public string Diagnostics = "";
    public List<(string Name, byte[] Bytes)> Files = new();
    public List<string> Links = new();  /* runtime files to link beside */
}

sealed class Compiler
{
    public static readonly Version RoslynVersion =
        typeof(CSharpCompilation).Assembly.GetName().Version!;
    public const string Tfm = "net10.0";
    const string Defines = "TRACE;DEBUG;NET;NET10_0;NETCOREAPP;NET5_0_OR_GREATER;" +
        "NET6_0_OR_GREATER;NET7_0_OR_GREATER;NET8_0_OR_GREATER;NET9_0_OR_GREATER;" +
        "NET10_0_OR_GREATER;NETCOREAPP1_0_OR_GREATER;NETCOREAPP1_1_OR_GREATER;" +
        "NETCOREAPP2_0_OR_GREATER;NETCOREAPP2_1_OR_GREATER;NETCOREAPP2_2_OR_GREATER;" +
        "NETCOREAPP3_0_OR_GREATER;NETCOREAPP3_1_OR_GREATER";
    static readonly string[] ImplicitUsings = {
        "System", "System.Collections.Generic", "System.IO", "System.Linq",
        "System.Net.Http", "System.Threading", "System.Threading.Tasks" };

    readonly List<MetadataReference> framework;
    readonly List<ISourceGenerator> sdkGenerators;
    readonly ConcurrentDictionary<string, MetadataReference> packageRefs = new();
    readonly ConcurrentDictionary<string, ImmutableArray<ISourceGenerator>> packageGens = new();
    readonly PackageSet packages;
    readonly string sdkDir;

    public Compiler(string refDir, string generatorDir, PackageSet packages, string sdkDir)
    {
        this.packages = packages;
        this.sdkDir = sdkDir;
        framework = Directory.GetFiles(refDir, "*.dll")
            .Select(f => (MetadataReference)MetadataReference.CreateFromFile(f)).ToList();
        sdkGenerators = Directory.Exists(generatorDir)
            ? Directory.GetFiles(generatorDir, "*.dll").SelectMany(f => LoadGenerators(f)).ToList()
            : new List<ISourceGenerator>();
    }

    /* Generators load into the service's own context; an assembly one
     * depends on is looked up beside the generators loaded so far (the
     * SDK's interop generators share Microsoft.Interop.SourceGeneration). */
    sealed class Loader : IAnalyzerAssemblyLoader
    {
        public static readonly Loader Instance = new();
        readonly ConcurrentDictionary<string, bool> dirs = new();
        Loader()
        {
            AssemblyLoadContext.Default.Resolving += (ctx, name) => {
                foreach (var d in dirs.Keys)
                    if (File.Exists(Path.Combine(d, name.Name + ".dll")))
                        return ctx.LoadFromAssemblyPath(Path.Combine(d, name.Name + ".dll"));
                return null;
            };
        }
        public void AddDependencyLocation(string fullPath) =>
            dirs.TryAdd(Path.GetDirectoryName(fullPath)!, true);
        public Assembly LoadFromPath(string fullPath)
        {
            AddDependencyLocation(fullPath);
            return AssemblyLoadContext.Default.LoadFromAssemblyPath(fullPath);
        }
    }

    static ImmutableArray<ISourceGenerator> LoadGenerators(string path) =>
        new AnalyzerFileReference(path, Loader.Instance).GetGenerators(LanguageNames.CSharp);

    public Output Compile(string projDir, string projName, ProjectSpec spec,
                          List<(string Name, byte[] Bytes)> sources, CancellationToken ct)
    {
        var pkgs = Resolve(spec, out string warnings);
        var args = Arguments(spec);
        var parsed = CSharpCommandLineParser.Default.Parse(args, projDir, sdkDir);
        /* the sources come as data, not as arguments: not a warning */
        var diags = parsed.Errors.Where(d => d.Id != "CS2008").ToList();
        if (diags.Any(d => d.Severity == DiagnosticSeverity.Error))
            return Report(diags, projDir, projName, warnings);
        var trees = new List<SyntaxTree>();
        foreach (var (name, bytes) in sources.Concat(Generated(spec)))
            trees.Add(Parse(bytes, Path.Combine(projDir, name), parsed.ParseOptions, ct));
        diags.AddRange(trees.SelectMany(t => t.GetDiagnostics(ct)));
        if (diags.Any(d => d.Severity == DiagnosticSeverity.Error))
            return Report(diags, projDir, projName, warnings);
        /* MSBuild passes the framework's and the packages' references
         * together, by file name: the order is recorded in the PDB */
        var refs = framework.Concat(pkgs.SelectMany(p => p.Compile).Select(PackageRef))
            .OrderBy(r => Path.GetFileName(r.Display), StringComparer.OrdinalIgnoreCase);
        Compilation comp = CSharpCompilation.Create(spec.AssemblyName, trees, refs,
            parsed.CompilationOptions);
        comp = RunGenerators(comp, pkgs, spec, parsed.ParseOptions, diags, ct);
        return Emit(comp, parsed.EmitOptions, spec, pkgs, diags, projDir, projName, warnings, ct);
    }

    /* The arguments MSBuild's Csc task passes for a Debug build of the
     * project (sources and references aside). */
    static string[] Arguments(ProjectSpec s)
    {
        var a = new List<string> {
            "/noconfig", s.Unsafe ? "/unsafe+" : "/unsafe-", s.Checked ? "/checked+" : "/checked-",
            "/nowarn:1701,1702,8002" + (s.NoWarn == "" ? "" : "," + s.NoWarn.Replace(';', ',')),
            "/fullpaths", "/nostdlib+", "/warn:" + (s.WarningLevel == "" ? "10" : s.WarningLevel),
            "/define:" + Defines, "/highentropyva+",
            "/features:InterceptorsNamespaces=;Microsoft.Extensions.Validation.Generated",
            "/debug+", "/debug:portable", "/filealign:512",
            s.Optimize ? "/optimize+" : "/optimize-", "/target:exe", "/warnaserror-",
            "/utf8output", "/deterministic+",
            "/langversion:" + (s.LangVersion == "" ? "14.0" : s.LangVersion),
            "/out:obj/Debug/" + Tfm + "/" + s.AssemblyName + ".dll",
        };
        if (s.Nullable != "")
            a.Add("/nullable:" + s.Nullable);
        return a.ToArray();
    }

    static SyntaxTree Parse(byte[] bytes, string path, CSharpParseOptions opts, CancellationToken ct)
    {
        using var ms = new MemoryStream(bytes, writable: false);
        var text = SourceText.From(ms, encoding: null, checksumAlgorithm: SourceHashAlgorithm.Sha256,
                                   throwIfBinaryDetected: false, canBeEmbedded: true);
        return CSharpSyntaxTree.ParseText(text, opts, path, ct);
    }

    /* The files the SDK generates under obj/ for the project. */
    static IEnumerable<(string, byte[])> Generated(ProjectSpec s)
    {
        string obj = "obj/Debug/" + Tfm + "/";
        var usings = (s.ImplicitUsings ? ImplicitUsings : Array.Empty<string>()).Concat(s.Usings);
        var gu = new StringBuilder("// <auto-generated/>\n");
        foreach (var u in usings)
            gu.Append("global using ").Append(u).Append(";\n");
        if (s.ImplicitUsings || s.Usings.Count > 0)
            yield return (obj + s.AssemblyName + ".GlobalUsings.g.cs", Encoding.UTF8.GetBytes(gu.ToString()));
        yield return (obj + ".NETCoreApp,Version=v10.0.AssemblyAttributes.cs", Encoding.UTF8.GetBytes(
            "// <autogenerated />\nusing System;\nusing System.Reflection;\n" +
            "[assembly: global::System.Runtime.Versioning.TargetFrameworkAttribute(\".NETCoreApp,Version=v10.0\", " +
            "FrameworkDisplayName = \".NET 10.0\")]\n"));
        string n = Quote(s.AssemblyName);
        yield return (obj + s.AssemblyName + ".AssemblyInfo.cs", Encoding.UTF8.GetBytes(
            "//------------------------------------------------------------------------------\n" +
            "// <auto-generated>\n//     This code was generated by a tool.\n//\n" +
            "//     Changes to this file may cause incorrect behavior and will be lost if\n" +
            "//     the code is regenerated.\n// </auto-generated>\n" +
            "//------------------------------------------------------------------------------\n\n" +
            "using System;\nusing System.Reflection;\n\n" +
            $"[assembly: System.Reflection.AssemblyCompanyAttribute(\"{n}\")]\n" +
            "[assembly: System.Reflection.AssemblyConfigurationAttribute(\"Debug\")]\n" +
            "[assembly: System.Reflection.AssemblyFileVersionAttribute(\"1.0.0.0\")]\n" +
            "[assembly: System.Reflection.AssemblyInformationalVersionAttribute(\"1.0.0\")]\n" +
            $"[assembly: System.Reflection.AssemblyProductAttribute(\"{n}\")]\n" +
            $"[assembly: System.Reflection.AssemblyTitleAttribute(\"{n}\")]\n" +
            "[assembly: System.Reflection.AssemblyVersionAttribute(\"1.0.0.0\")]\n\n" +
            "// Generated by the MSBuild WriteCodeFragment class.\n\n"));
    }

    static string Quote(string s) => s.Replace("\\", "\\\\").Replace("\"", "\\\"");

    /* The project's packages and their dependencies, as a restore against
     * the snapshot's folder alone would pick them: the version asked for,
     * or a higher one with NuGet's NU1603 warning; a package the snapshot
     * lacks is NU1101/NU1102, at once. */
    List<Package> Resolve(ProjectSpec spec, out string warnings)
    {
        var roots = new List<Package>();
        var w = new StringBuilder();
        foreach (var (id, ver) in spec.Packages) {
            var p = packages.Find(id);
            if (p == null)
                throw new MissingPackage(id, ver, null);
            int cmp = CompareVersions(p.Version, ver);
            if (cmp < 0)
                throw new MissingPackage(id, ver, p.Version);
            if (cmp > 0)
                w.Append($"warning NU1603: {spec.AssemblyName} depends on {id} (>= {ver}) but {id} {ver} " +
                         $"was not found. {id} {p.Version} was resolved instead.\n");
            roots.Add(p);
        }
        warnings = w.ToString();
        return packages.Closure(roots);
    }

    static int CompareVersions(string have, string want)
    {
        if (Version.TryParse(have.Split('-')[0], out var h) && Version.TryParse(want.Split('-')[0], out var v))
            return h.CompareTo(v) != 0 ? h.CompareTo(v) : string.CompareOrdinal(have, want);
        return string.CompareOrdinal(have, want);
    }

    MetadataReference PackageRef(string path) =>
        packageRefs.GetOrAdd(path, p => MetadataReference.CreateFromFile(p));

    Compilation RunGenerators(Compilation comp, List<Package> pkgs, ProjectSpec spec,
                              CSharpParseOptions opts, List<Diagnostic> diags, CancellationToken ct)
    {
        var gens = sdkGenerators.Concat(pkgs.SelectMany(p => p.Generators)
            .SelectMany(f => packageGens.GetOrAdd(f, LoadGenerators))).ToList();
        if (gens.Count == 0)
            return comp;
        var driver = CSharpGeneratorDriver.Create(gens, parseOptions: opts,
            optionsProvider: new BuildProperties(spec));
        driver.RunGeneratorsAndUpdateCompilation(comp, out var updated, out var gd, ct);
        diags.AddRange(gd);
        return updated;
    }

    Output Emit(Compilation comp, Microsoft.CodeAnalysis.Emit.EmitOptions emitOptions, ProjectSpec spec, List<Package> pkgs,
                List<Diagnostic> diags, string projDir, string projName, string warnings,
                CancellationToken ct)
    {
        using var pe = new MemoryStream();
        using var pdb = new MemoryStream();
        string outDir = Path.Combine(projDir, "bin/Debug", Tfm);
        var opts = emitOptions.WithDebugInformationFormat(Microsoft.CodeAnalysis.Emit.DebugInformationFormat.PortablePdb)
            .WithPdbFilePath(Path.Combine(projDir, "obj/Debug", Tfm, spec.AssemblyName + ".pdb"));
        /* the version resource csc makes from the assembly attributes */
        using var win32 = comp.CreateDefaultWin32Resources(versionResource: true, noManifest: false,
                                                           manifestContents: null, iconInIcoFormat: null);
        var result = comp.Emit(pe, pdb, win32Resources: win32, options: opts, cancellationToken: ct);
        diags.AddRange(result.Diagnostics);
        var output = Report(diags, projDir, projName, warnings);
        if (!result.Success)
            return output;
        output.Files.Add((spec.AssemblyName + ".dll", pe.ToArray()));
        output.Files.Add((spec.AssemblyName + ".pdb", pdb.ToArray()));
        output.Files.Add((spec.AssemblyName + ".runtimeconfig.json", RuntimeConfig(spec)));
        output.Links.AddRange(pkgs.SelectMany(p => p.Runtime.Concat(p.Native)));
        return output;
    }

    static byte[] RuntimeConfig(ProjectSpec s)
    {
        string extra = s.Invariant ? ",\n      \"System.Globalization.Invariant\": true" : "";
        return Encoding.UTF8.GetBytes(
            "{\n  \"runtimeOptions\": {\n    \"tfm\": \"" + Tfm + "\",\n    \"framework\": {\n" +
            "      \"name\": \"Microsoft.NETCore.App\",\n      \"version\": \"10.0.0\"\n    },\n" +
            "    \"configProperties\": {\n" + (s.Invariant ? "      \"System.Globalization.Invariant\": true,\n" : "") +
            "      \"System.Runtime.Serialization.EnableUnsafeBinaryFormatterSerialization\": false\n" +
            "    }\n  }\n}");
    }

    /* csc's lines, with MSBuild's " [project]" suffix; errors decide. */
    static Output Report(List<Diagnostic> diags, string projDir, string projName, string warnings)
    {
        var sb = new StringBuilder(warnings);
        string proj = Path.Combine(projDir, projName);
        bool failed = false;
        foreach (var d in diags) {
            if (d.IsSuppressed || d.Severity < DiagnosticSeverity.Warning)
                continue;
            failed |= d.Severity == DiagnosticSeverity.Error;
            sb.Append(CSharpDiagnosticFormatter.Instance.Format(d, System.Globalization.CultureInfo.InvariantCulture))
              .Append(" [").Append(proj).Append("]\n");
        }
        return new Output { Status = failed ? 1 : 0, Diagnostics = sb.ToString() };
    }

    /* build_property.* as MSBuild writes them into the generated
     * .editorconfig, which generators read. */
    sealed class BuildProperties : AnalyzerConfigOptionsProvider
    {
        readonly Opts global;
        public BuildProperties(ProjectSpec s)
        {
            global = new Opts(new Dictionary<string, string> {
                ["build_property.TargetFramework"] = Tfm,
                ["build_property.TargetFrameworkIdentifier"] = ".NETCoreApp",
                ["build_property.TargetFrameworkVersion"] = "v10.0",
                ["build_property.RootNamespace"] = s.RootNamespace,
                ["build_property.InvariantGlobalization"] = s.Invariant ? "true" : "",
                ["build_property._SupportedPlatformList"] = "Linux,macOS,Windows",
                ["build_property.EffectiveAnalysisLevelStyle"] = "10.0",
            });
        }
        public override AnalyzerConfigOptions GlobalOptions => global;
        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => Opts.Empty;
        public override AnalyzerConfigOptions GetOptions(AdditionalText text) => Opts.Empty;
    }

    sealed class Opts : AnalyzerConfigOptions
    {
        public static readonly Opts Empty = new(new Dictionary<string, string>());
        readonly Dictionary<string, string> d;
        public Opts(Dictionary<string, string> d) { this.d = d; }
        public override bool TryGetValue(string key, out string value) =>
            d.TryGetValue(key, out value!);
    }
}

sealed class MissingPackage : Exception
{
    public MissingPackage(string id, string want, string? have) : base(have == null
        ? $"error NU1101: Unable to find package {id}. No packages exist with this id in source(s): " +
          "the snapshot's package folder"
        : $"error NU1102: Unable to find package {id} with version (>= {want}); the snapshot has {have}")
    { }
}
