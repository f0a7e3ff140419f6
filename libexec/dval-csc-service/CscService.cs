/* The dotnet snapshot's compile service: one long-lived process that
 * compiles C# projects handed over a unix socket with the SDK's own
 * compiler, so a validation pays neither MSBuild nor a cold compiler.
 *
 * Trust (the javac service's rules): it runs as a uid of its own, started
 * by the executor, never by a validation. It reads no file a request
 * names: the client sends the project file and the sources as data; the
 * assembly, its symbols, its runtimeconfig and the diagnostics go back in
 * the reply, with the list of the snapshot's package files the program
 * loads (the client links them beside it). References come from the
 * snapshot alone (the SDK's reference pack and the package folder it
 * restored); it runs no analyzer, generator or task of the validation
 * (only the SDK's and the snapshot packages' generators). A project it
 * cannot build exactly as `dotnet build` would is "not eligible" and the
 * client runs the full build in the validation's own processes.
 *
 * Bounds: files, names and bytes per request; connections in all and per
 * peer uid; a wait for a compile slot; a compile budget (cancelled); a
 * compile that ignores its cancellation ends the service, which its
 * supervisor starts again.
 *
 * Protocol (big-endian): "DVC1", u32 len + project directory (absolute,
 * a label for paths in diagnostics), u32 nfiles, per file u32 namelen +
 * name (relative; one .csproj, the rest .cs), u32 len + bytes. Reply:
 * "DVC1" u32 status (0 compiled, 1 compile errors, 2 busy or bad request,
 * 3 not eligible), u32 len + text (diagnostics, or why), u32 nfiles
 * (u32 len + name, u32 len + bytes), u32 nlinks (u32 len + path). */
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

static class CscService
{
    const int MaxFiles = 1000, MaxName = 512, MaxClients = 16, MaxPerUid = 2;
    const long MaxIn = 16L << 20;
    const int ReadMs = 10_000, SlotWaitMs = 15_000, CompileMs = 20_000, HaltMs = 25_000;
    static readonly SemaphoreSlim Clients = new(MaxClients);
    static readonly SemaphoreSlim Slots = new(Math.Max(1, Math.Min(Environment.ProcessorCount, 2)));
    static readonly ConcurrentDictionary<uint, int> PerUid = new();
    static Compiler compiler = null!;

    public static int Main(string[] args)
    {
        if (args.Length == 3 && args[0] == "--runtime-assets")
            return RuntimeAssets(args[1], args[2]);
        if (args.Length < 5) {
            Console.Error.WriteLine("usage: CscService SOCKET REFDIR GENERATORDIR ASSETS PACKAGES [SDKDIR]");
            return 2;
        }
        /* Listening first: a validation that comes while the compiler
         * warms up (a sandbox's first) waits in the backlog for it, which
         * is quicker than building in full without it. */
        File.Delete(args[0]);
        var srv = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        srv.Bind(new UnixDomainSocketEndPoint(args[0]));
        /* connecting needs write permission; the directory (0755, ours)
         * keeps anyone else from replacing the socket */
        File.SetUnixFileMode(args[0], (UnixFileMode)0x1b6);
        srv.Listen(32);
        var pkgs = PackageSet.Load(args[3], args[4]);
        compiler = new Compiler(args[1], args[2], pkgs, args.Length > 5 ? args[5] : "/");
        /* beside the first requests, not before them: they need the same
         * code compiled by the JIT, whichever comes first */
        Task.Run(() => WarmUp(pkgs));
        for (;;) {
            var s = srv.Accept();
            if (!Clients.Wait(0)) {
                s.Dispose(); /* busy: the client builds in full */
                continue;
            }
            Task.Run(() => Serve(s));
        }
    }

    /* --runtime-assets ASSETS PACKAGES (the snapshot build's r2r.sh, a
     * test): each managed assembly a program of the package set may load
     * (what a build links beside it), one a line, "r2r PATH" when it is
     * ReadyToRun code already, else "il PATH". */
    static int RuntimeAssets(string assets, string packages)
    {
        var pkgs = PackageSet.Load(assets, packages);
        var files = pkgs.All.SelectMany(p => p.Runtime).Where(f => f.EndsWith(".dll"))
            .Distinct().OrderBy(f => f, StringComparer.Ordinal);
        foreach (var f in files)
            Console.WriteLine((IsReadyToRun(f) ? "r2r " : "il ") + f);
        return 0;
    }

    static bool IsReadyToRun(string path)
    {
        try {
            using var pe = new System.Reflection.PortableExecutable.PEReader(File.OpenRead(path));
            var cor = pe.PEHeaders.CorHeader;
            return cor != null && cor.ManagedNativeHeaderDirectory.Size > 0;
        } catch (Exception e) when (e is IOException or BadImageFormatException or UnauthorizedAccessException) {
            return false;
        }
    }

    /* The first compiles load and JIT the compiler and the references. */
    static void WarmUp(PackageSet pkgs)
    {
        var proj = Encoding.UTF8.GetBytes("<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup>" +
            "<OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework>" +
            "<ImplicitUsings>enable</ImplicitUsings><Nullable>enable</Nullable></PropertyGroup></Project>");
        var src = Encoding.UTF8.GetBytes("var xs = new List<int> { 1, 2, 3 };\n" +
            "Console.WriteLine(string.Join(\",\", xs.Select(x => x * 2)) + $\"{xs.Count}\");\n" +
            "record R(int A, string B);\n");
        var spec = ProjectSpec.Parse("W.csproj", proj);
        for (int i = 0; i < 3; i++)
            compiler.Compile("/w", "W.csproj", spec, new() { ("Program.cs", src) }, CancellationToken.None);
    }

    static uint PeerUid(Socket s)
    {
        var cred = new byte[12];
        s.GetRawSocketOption(1 /* SOL_SOCKET */, 17 /* SO_PEERCRED */, cred);
        return BitConverter.ToUInt32(cred, 4);
    }

    static void Serve(Socket s)
    {
        uint uid = uint.MaxValue;
        try {
            uid = PeerUid(s);
            if (PerUid.AddOrUpdate(uid, 1, (_, n) => n + 1) > MaxPerUid) {
                Reply(s, 2, "dval-csc-service: too many connections of this validation", null);
                return;
            }
            s.ReceiveTimeout = ReadMs;
            s.SendTimeout = ReadMs;
            using var ns = new NetworkStream(s, ownsSocket: false);
            var rd = new Reader(ns, MaxIn);
            Handle(s, rd);
        } catch (Exception e) when (e is IOException or SocketException or BadRequest) {
            TryReply(s, 2, "dval-csc-service: bad request: " + e.Message);
        } finally {
            if (uid != uint.MaxValue)
                PerUid.AddOrUpdate(uid, 0, (_, n) => n - 1);
            s.Dispose();
            Clients.Release();
        }
    }

    static void Handle(Socket s, Reader rd)
    {
        if (rd.Bytes(4) is var m && Encoding.ASCII.GetString(m) != "DVC1")
            throw new BadRequest("not DVC1");
        string dir = rd.Str(4096);
        if (!dir.StartsWith('/') || dir.Any(char.IsControl))
            throw new BadRequest("project directory");
        var (projName, projText, sources) = ReadFiles(rd);
        ProjectSpec spec;
        try {
            spec = ProjectSpec.Parse(projName, projText);
        } catch (NotEligible e) {
            Reply(s, 3, "dval-csc-service: not eligible: " + e.Message, null);
            return;
        }
        if (!Slots.Wait(SlotWaitMs)) {
            Reply(s, 2, "dval-csc-service: busy", null);
            return;
        }
        /* Roslyn checks its token often, but not everywhere (binding nested
         * lambdas); a compile that does not answer in time is wedged, and
         * only a new process frees its thread and memory. Its client gets
         * the verdict first: it must not retry the same compile in full. */
        using var halt = new Timer(_ => {
            TryReply(s, 1, Budget(dir, projName).TrimEnd('\n'));
            Environment.Exit(70);
        }, null, HaltMs, Timeout.Infinite);
        try {
            Reply(s, Compile(dir, projName, spec, sources));
        } finally {
            Slots.Release();
        }
    }

    static string Budget(string dir, string projName) => Path.Combine(dir, projName) +
        $" : error DVAL0001: the compile ran past its budget of {CompileMs / 1000} s\n";

    static Output Compile(string dir, string projName, ProjectSpec spec, List<(string, byte[])> sources)
    {
        using var cts = new CancellationTokenSource(CompileMs);
        try {
            if (spec.TargetFramework != Compiler.Tfm)
                return new Output { Status = 3, Diagnostics = "dval-csc-service: not eligible: " +
                    "TargetFramework " + spec.TargetFramework };
            return compiler.Compile(dir, projName, spec, sources, cts.Token);
        } catch (MissingPackage e) {
            return new Output { Status = 1, Diagnostics = Path.Combine(dir, projName) + " : " + e.Message +
                "\ndval: the package is not in this snapshot: add it to the snapshot's packages with a " +
                "profile file, {\"extends\": \"dotnet\", \"name\": \"dotnet-more\", \"build_steps\": " +
                "[\"sh /opt/dval-dotnet/packages.sh ID@VERSION\"]}, and run --profile ./that.json " +
                "(dval_profile_load(3))\n" };
        } catch (OperationCanceledException) {
            return new Output { Status = 1, Diagnostics = Budget(dir, projName) };
        }
    }

    static (string, byte[], List<(string, byte[])>) ReadFiles(Reader rd)
    {
        uint n = rd.U32();
        if (n < 1 || n > MaxFiles)
            throw new BadRequest("file count");
        string? projName = null;
        byte[]? projText = null;
        var sources = new List<(string, byte[])>();
        for (uint i = 0; i < n; i++) {
            string name = rd.Str(MaxName);
            byte[] body = rd.Bytes((int)rd.U32());
            CheckName(name);
            if (name.EndsWith(".csproj") && !name.Contains('/') && projName == null)
                (projName, projText) = (name, body);
            else if (name.EndsWith(".cs"))
                sources.Add((name, body));
            else
                throw new BadRequest("file " + name);
        }
        if (projName == null)
            throw new BadRequest("no project file");
        return (projName, projText!, sources);
    }

    static void CheckName(string name)
    {
        if (name.Length == 0 || name.StartsWith('/') || name.Any(char.IsControl) ||
            name.Split('/').Any(c => c is "" or "." or ".."))
            throw new BadRequest("file name");
    }

    static void TryReply(Socket s, int status, string text)
    {
        try { Reply(s, status, text, null); } catch (Exception) { }
    }

    static void Reply(Socket s, Output o)
    {
        var w = new MemoryStream();
        Put(w, Encoding.ASCII.GetBytes("DVC1"), false);
        PutU32(w, (uint)o.Status);
        Put(w, Encoding.UTF8.GetBytes(o.Diagnostics), true);
        PutU32(w, (uint)o.Files.Count);
        foreach (var (name, bytes) in o.Files) {
            Put(w, Encoding.UTF8.GetBytes(name), true);
            Put(w, bytes, true);
        }
        PutU32(w, (uint)o.Links.Count);
        foreach (var l in o.Links)
            Put(w, Encoding.UTF8.GetBytes(l), true);
        s.Send(w.ToArray());
    }

    static void Reply(Socket s, int status, string text, object? _) =>
        Reply(s, new Output { Status = status, Diagnostics = text + "\n" });

    static void PutU32(Stream w, uint v)
    {
        Span<byte> b = stackalloc byte[4];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(b, v);
        w.Write(b);
    }

    static void Put(Stream w, byte[] b, bool len)
    {
        if (len)
            PutU32(w, (uint)b.Length);
        w.Write(b);
    }
}

sealed class BadRequest : Exception
{
    public BadRequest(string why) : base(why) { }
}

/* Reads a request, never more than its budget of bytes in all. */
sealed class Reader
{
    readonly Stream s;
    long left;
    public Reader(Stream s, long budget) { this.s = s; left = budget; }

    public byte[] Bytes(int n)
    {
        if (n < 0 || n > left)
            throw new BadRequest("too large");
        left -= n;
        var b = new byte[n];
        s.ReadExactly(b);
        return b;
    }

    public uint U32() => System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(Bytes(4));

    public string Str(int max)
    {
        uint n = U32();
        if (n > max)
            throw new BadRequest("name too long");
        return Encoding.UTF8.GetString(Bytes((int)n));
    }
}
