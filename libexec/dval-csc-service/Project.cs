/* What a request's .csproj asks for, when it is a plain console project
 * that the service can build exactly as `dotnet build` would: the SDK's
 * defaults plus a short list of properties, package references from the
 * snapshot's set and global usings. Anything else (targets, imports,
 * conditions, tasks, analyzers, other item types, unknown properties) is
 * "not eligible": the client then runs a full `dotnet build` in the
 * validation's own processes. The text is parsed as data (no DTD, no
 * external entity, no import is ever followed). */
using System;
using System.Collections.Generic;
using System.IO;
using System.Xml;

sealed class NotEligible : Exception
{
    public NotEligible(string why) : base(why) { }
}

sealed class ProjectSpec
{
    public string AssemblyName = "", RootNamespace = "", TargetFramework = "";
    public string Nullable = "", LangVersion = "", WarningLevel = "", NoWarn = "";
    public bool ImplicitUsings, Unsafe, Optimize, Checked, Invariant;
    public List<(string Id, string Version)> Packages = new();
    public List<string> Usings = new();

    /* Properties the fast path honours; every other one is not eligible. */
    static readonly HashSet<string> Known = new(StringComparer.Ordinal) {
        "OutputType", "TargetFramework", "ImplicitUsings", "Nullable",
        "LangVersion", "AllowUnsafeBlocks", "RootNamespace", "AssemblyName",
        "TreatWarningsAsErrors", "WarningLevel", "NoWarn", "Optimize",
        "CheckForOverflowUnderflow", "InvariantGlobalization", "Deterministic",
    };

    public static ProjectSpec Parse(string fileName, byte[] text)
    {
        var spec = new ProjectSpec { AssemblyName = Path.GetFileNameWithoutExtension(fileName) };
        spec.RootNamespace = spec.AssemblyName;
        var settings = new XmlReaderSettings {
            DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null,
            IgnoreComments = true, IgnoreWhitespace = true, MaxCharactersInDocument = 1 << 20,
        };
        var doc = new XmlDocument { XmlResolver = null };
        try {
            using var r = XmlReader.Create(new MemoryStream(text), settings);
            doc.Load(r);
        } catch (XmlException e) {
            throw new NotEligible("the project file is not well-formed XML: " + e.Message);
        }
        var root = doc.DocumentElement!;
        if (root.Name != "Project" || root.GetAttribute("Sdk") != "Microsoft.NET.Sdk")
            throw new NotEligible("the project is not <Project Sdk=\"Microsoft.NET.Sdk\">");
        foreach (XmlAttribute a in root.Attributes)
            if (a.Name != "Sdk" && a.Name != "xmlns")
                throw new NotEligible("<Project> attribute " + a.Name);
        bool exe = false;
        foreach (XmlNode n in root.ChildNodes) {
            if (n is not XmlElement e)
                continue;
            NoAttributes(e);
            if (e.Name == "PropertyGroup")
                foreach (XmlNode p in e.ChildNodes)
                    exe |= spec.Property(p);
            else if (e.Name == "ItemGroup")
                foreach (XmlNode i in e.ChildNodes)
                    spec.Item(i);
            else
                throw new NotEligible("<" + e.Name + "> in the project");
        }
        if (!exe)
            throw new NotEligible("the project's OutputType is not Exe");
        return spec;
    }

    static void NoAttributes(XmlElement e)
    {
        if (e.Attributes.Count > 0)
            throw new NotEligible("attributes on <" + e.Name + ">");
    }

    static string Text(XmlElement e)
    {
        foreach (XmlNode c in e.ChildNodes)
            if (c is not XmlText)
                throw new NotEligible("markup inside <" + e.Name + ">");
        string v = e.InnerText.Trim();
        if (v.Contains("$(") || v.Contains("@(") || v.Contains("%("))
            throw new NotEligible("an MSBuild expression in <" + e.Name + ">");
        return v;
    }

    static bool Bool(string name, string v) => v.ToLowerInvariant() switch {
        "true" or "enable" => true,
        "false" or "disable" or "" => false,
        _ => throw new NotEligible(name + " = " + v),
    };

    /* Returns true when it is OutputType Exe. */
    bool Property(XmlNode node)
    {
        if (node is not XmlElement e)
            return false;
        NoAttributes(e);
        if (!Known.Contains(e.Name))
            throw new NotEligible("property " + e.Name);
        string v = Text(e);
        switch (e.Name) {
        case "OutputType":
            if (!v.Equals("Exe", StringComparison.OrdinalIgnoreCase))
                throw new NotEligible("OutputType " + v);
            return true;
        case "TargetFramework": TargetFramework = v; break;
        case "ImplicitUsings": ImplicitUsings = Bool(e.Name, v); break;
        case "Nullable": Nullable = v; break;
        case "LangVersion": LangVersion = v; break;
        case "AllowUnsafeBlocks": Unsafe = Bool(e.Name, v); break;
        case "RootNamespace": RootNamespace = v; break;
        case "AssemblyName": AssemblyName = Name(v); break;
        case "TreatWarningsAsErrors":
            /* analyzer warnings would become errors: only a full build has them */
            if (Bool(e.Name, v))
                throw new NotEligible("TreatWarningsAsErrors");
            break;
        case "WarningLevel": WarningLevel = v; break;
        case "NoWarn": NoWarn = v; break;
        case "Optimize": Optimize = Bool(e.Name, v); break;
        case "CheckForOverflowUnderflow": Checked = Bool(e.Name, v); break;
        case "InvariantGlobalization": Invariant = Bool(e.Name, v); break;
        case "Deterministic":
            if (!Bool(e.Name, v))
                throw new NotEligible("Deterministic false");
            break;
        }
        return false;
    }

    static string Name(string v)
    {
        foreach (char c in v)
            if (!char.IsAsciiLetterOrDigit(c) && c != '.' && c != '_' && c != '-')
                throw new NotEligible("AssemblyName " + v);
        if (v.Length == 0 || v.Length > 128 || v.StartsWith('.'))
            throw new NotEligible("AssemblyName " + v);
        return v;
    }

    void Item(XmlNode node)
    {
        if (node is not XmlElement e)
            return;
        string include = e.GetAttribute("Include");
        if (e.Name == "PackageReference") {
            string ver = e.GetAttribute("Version");
            if (e.Attributes.Count != 2 || include == "" || ver == "" || e.HasChildNodes)
                throw new NotEligible("a PackageReference other than Include + Version");
            Packages.Add((include, ver));
        } else if (e.Name == "Using") {
            if (e.Attributes.Count != 1 || include == "" || e.HasChildNodes)
                throw new NotEligible("a Using item other than Include");
            foreach (char c in include)
                if (!char.IsAsciiLetterOrDigit(c) && c != '.' && c != '_')
                    throw new NotEligible("Using " + include);
            Usings.Add(include);
        } else {
            throw new NotEligible("item " + e.Name);
        }
    }
}
