/* C# on the local executor, for real: the dotnet profile's samples run
 * through the snapshot's compile service, its output is byte for byte
 * what a full `dotnet build` makes of the same project in the same
 * directory, a compile error reports file, line and CS code the same way
 * on both paths, the package set the program loads is ReadyToRun code,
 * and a package the snapshot lacks fails at once with how
 * to add it (no wait on a network the sandbox does not have). */
#include "dotnet.h"

#include <stdio.h>
#include <string.h>

#define EX "examples/validation/"

/* Builds dir with the service, keeps its output aside, builds it again in
 * full and compares: 0 when both paths ran and the outputs are equal. */
static void same_output_both_ways(lt *t, const char *dir, const char *asm_)
{
    char cmd[1600];
    snprintf(cmd, sizeof cmd,
             DN_BUILD " && mkdir -p .keep && cp bin/Debug/net10.0/%s.dll "
             "bin/Debug/net10.0/%s.pdb .keep/ && rm -rf bin obj && " DN_FULL
             " && cmp .keep/%s.dll bin/Debug/net10.0/%s.dll && cmp .keep/%s.pdb "
             "obj/Debug/net10.0/%s.pdb && echo SAME", asm_, asm_, asm_, asm_,
             asm_, asm_);
    lt_out o = { 0 };
    int rc = lt_run_in(t, "d", dir, cmd, &o);
    if (rc != 0 || !strstr(dn_text(&o, 0), "SAME"))
        th_fail(__FILE__, __LINE__, "%s: exit %d\n%s%s", dir, rc,
                dn_text(&o, 0), dn_text(&o, 1));
    CHECK_CONTAINS(dn_text(&o, 1), DN_VIA_SERVICE);
    CHECK_CONTAINS(dn_text(&o, 1), DN_VIA_BUILD);
    lt_out_free(&o);
}

TEST(test_dotnet__console_sample_through_the_service)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    dn_put_dir(&t, "d", EX "dotnet", "/sandbox/c");
    lt_out o = { 0 };
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/c", DN_RUN, &o), 0);
    CHECK_STR(dn_text(&o, 0), "fibonacci(50) = 12586269025\n");
    CHECK_CONTAINS(dn_text(&o, 1), DN_VIA_SERVICE);
    lt_out_free(&o);
    dval__buf r = { 0 };
    CHECK_INT(lt_download(&t, "d", "/sandbox/c/results/results.json", &r),
              DVAL_OK);
    CHECK_CONTAINS(r.data, "\"fibonacci_50\":12586269025");
    CHECK_CONTAINS(r.data, "\"runtime\":\"10.0.");
    dval__buf_free(&r);
    same_output_both_ways(&t, "/sandbox/c", "Validation");
    lt_close(&t);
}

TEST(test_dotnet__efcore_and_dapper_samples_agree)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    dn_put_dir(&t, "d", EX "dotnet-efcore-sqlite", "/sandbox/ef");
    dn_put_dir(&t, "d", EX "dotnet-dapper", "/sandbox/dp");
    lt_out a = { 0 }, b = { 0 };
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/ef", DN_RUN, &a), 0);
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/dp", DN_RUN, &b), 0);
    CHECK_CONTAINS(dn_text(&a, 1), DN_VIA_SERVICE);
    CHECK_CONTAINS(dn_text(&b, 1), DN_VIA_SERVICE);
    CHECK_CONTAINS(dn_text(&a, 0), "big_orders: [{\"Id\":1,\"Customer\":"
                   "\"Ada\",\"Cents\":12050},{\"Id\":3,\"Customer\":\"Linus\","
                   "\"Cents\":7500}]\n");
    CHECK_STR(dn_text(&a, 0), dn_text(&b, 0));
    lt_out_free(&a);
    lt_out_free(&b);
    dval__buf ra = { 0 }, rb = { 0 };
    CHECK_INT(lt_download(&t, "d", "/sandbox/ef/results/results.json", &ra),
              DVAL_OK);
    CHECK_INT(lt_download(&t, "d", "/sandbox/dp/results/results.json", &rb),
              DVAL_OK);
    CHECK_STR(ra.data, rb.data);
    dval__buf_free(&ra);
    dval__buf_free(&rb);
    /* the snapshot's package set is ReadyToRun code (r2r.sh), the EF Core
     * the program loads included, by the compile service's own list */
    lt_out r = { 0 };
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/ef",
                        "dotnet exec /opt/dval-dotnet/csc/CscService.dll "
                        "--runtime-assets /opt/dval-dotnet/pkgset/obj/project.assets.json "
                        "/opt/dval-dotnet/packages >obj/assets.txt && grep -x \"r2r "
                        "$(readlink -f bin/Debug/net10.0/Microsoft.EntityFrameworkCore.dll)"
                        "\" obj/assets.txt", &r), 0);
    CHECK_CONTAINS(dn_text(&r, 0), "r2r /opt/dval-dotnet/packages/"
                   "microsoft.entityframeworkcore/10.0.15/lib/net10.0/"
                   "Microsoft.EntityFrameworkCore.dll\n");
    lt_out_free(&r);
    same_output_both_ways(&t, "/sandbox/ef", "Shop");
    lt_close(&t);
}

TEST(test_dotnet__compile_error_same_diagnostics_both_ways)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    dn_put_dir(&t, "d", EX "dotnet-compile-error", "/sandbox/e");
    dn_put_dir(&t, "d", EX "dotnet-compile-error", "/sandbox/f");
    lt_out a = { 0 }, b = { 0 };
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/e", DN_RUN, &a), 1);
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/f", "DVAL_CSC=0; export DVAL_CSC; " DN_RUN, &b), 1);
    CHECK_CONTAINS(dn_text(&a, 1), DN_VIA_SERVICE);
    CHECK_CONTAINS(dn_text(&b, 1), DN_VIA_BUILD);
    static const char line[] = "Program.cs(5,16): error CS0029: Cannot "
        "implicitly convert type 'int' to 'string' [/sandbox/%c/Broken.csproj]";
    char e[256], f[256];
    snprintf(e, sizeof e, line, 'e');
    snprintf(f, sizeof f, line, 'f');
    CHECK_CONTAINS(dn_text(&a, 1), e);
    CHECK_CONTAINS(dn_text(&b, 1), f);
    CHECK_STR(dn_text(&a, 0), ""); /* the program never ran */
    CHECK_STR(dn_text(&b, 0), "");
    lt_out_free(&a);
    lt_out_free(&b);
    lt_close(&t);
}

static const char pkg_proj[] =
    "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><OutputType>Exe"
    "</OutputType><TargetFramework>net10.0</TargetFramework>%s"
    "</PropertyGroup><ItemGroup><PackageReference Include=\"%s\" "
    "Version=\"%s\" /></ItemGroup></Project>\n";

static void put_pkg_project(lt *t, const char *dir, const char *extra,
                            const char *id, const char *ver)
{
    char proj[1024];
    snprintf(proj, sizeof proj, pkg_proj, extra, id, ver);
    dn_put(t, "d", dir, "P.csproj", proj);
    dn_put(t, "d", dir, "Program.cs", "System.Console.WriteLine(1);\n");
}

TEST(test_dotnet__missing_package_fails_at_once_naming_it)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d");
    put_pkg_project(&t, "/sandbox/a", "", "Not.In.The.Snapshot", "1.0.0");
    put_pkg_project(&t, "/sandbox/b", "", "Dapper", "99.0.0");
    lt_out a = { 0 }, b = { 0 };
    int64_t t0 = dval__now_ms();
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/a", DN_RUN, &a), 1);
    int64_t ms = dval__now_ms() - t0;
    CHECK(ms < 1000);
    CHECK_CONTAINS(dn_text(&a, 1), "error NU1101: Unable to find package "
                   "Not.In.The.Snapshot");
    CHECK_CONTAINS(dn_text(&a, 1), "\"extends\": \"dotnet\"");
    CHECK_CONTAINS(dn_text(&a, 1), "packages.sh ID@VERSION");
    CHECK_INT(lt_run_in(&t, "d", "/sandbox/b", DN_RUN, &b), 1);
    CHECK_CONTAINS(dn_text(&b, 1), "error NU1102: Unable to find package "
                   "Dapper with version (>= 99.0.0); the snapshot has 2.1.86");
    lt_out_free(&a);
    lt_out_free(&b);
    /* a project only the full build takes: the offline restore says the
     * same, from the snapshot's folder, without trying any network */
    put_pkg_project(&t, "/sandbox/c", "<Authors>x</Authors>",
                    "Not.In.The.Snapshot", "1.0.0");
    lt_out c = { 0 };
    t0 = dval__now_ms();
    CHECK(lt_run_in(&t, "d", "/sandbox/c", DN_RUN, &c) != 0);
    CHECK(dval__now_ms() - t0 < 20000);
    CHECK_CONTAINS(dn_text(&c, 1), DN_VIA_BUILD);
    CHECK_CONTAINS(dn_text(&c, 1), "NU1101");
    CHECK(strstr(dn_text(&c, 1), "nuget.org") == NULL);
    lt_out_free(&c);
    lt_close(&t);
}

static int collect(int stream, const char *data, size_t len, void *ud)
{
    (void)stream;
    dval__buf_append(ud, data, len);
    return 0;
}

/* Only a machine's first dotnet snapshot runs crossgen2: r2r.sh keeps
 * each output in the build cache the executor lends every build, and a
 * second build of the same package set copies them all. */
TEST(test_dotnet__second_snapshot_takes_r2r_from_the_build_cache)
{
    lt t;
    lt_open_shared(&t, "dotnet-suite");
    dn_sandbox(&t, "d"); /* the cache has the set now, if not before */
    th_timeout(600);
    const dval_profile *p = dval_profile_find("dotnet");
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = "again",
                             .image = "mcr.microsoft.com/dotnet/sdk:10.0",
                             .build_commands = p->local_build_commands };
    dval__buf log = { 0 };
    dval_call *c = lt_call(&t);
    c->timeout_ms = 300000;
    CHECK_INT(t.ex.snapshot_create(t.ex.userdata, c, &s, NULL, collect,
                                   &log), DVAL_OK);
    dval__buf_append(&log, "", 1);
    CHECK_CONTAINS(log.data, "assemblies from the build cache, 0 to compile");
    CHECK(strstr(log.data, "r2r.sh: crossgen2") == NULL);
    dval__buf_free(&log);
    lt_close(&t);
}
