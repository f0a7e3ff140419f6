/* A package the dotnet snapshot lacks is added by a profile file that
 * extends the profile (the compile service's missing-package message
 * says how): {"extends": "dotnet", "build_steps": ["sh
 * /opt/dval-dotnet/packages.sh ID@VERSION"]}. Its snapshot restores the
 * package with the build's network; the validation then compiles and
 * runs against it offline, like the default set. */
#include "lt.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[800];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static const char csproj[] =
    "<Project Sdk=\"Microsoft.NET.Sdk\">\n"
    "  <PropertyGroup><OutputType>Exe</OutputType>"
    "<TargetFramework>net10.0</TargetFramework>"
    "<ImplicitUsings>enable</ImplicitUsings></PropertyGroup>\n"
    "  <ItemGroup><PackageReference Include=\"Newtonsoft.Json\" "
    "Version=\"13.0.4\" /></ItemGroup>\n"
    "</Project>\n";

static const char program[] =
    "using Newtonsoft.Json.Linq;\n"
    "var dir = Environment.GetEnvironmentVariable(\"DVAL_RESULTS_DIR\")!;\n"
    "var rows = JArray.Parse(\"[{\\\"id\\\":1},{\\\"id\\\":2}]\").Count;\n"
    "Directory.CreateDirectory(dir);\n"
    "File.WriteAllText(Path.Combine(dir, \"results.json\"), "
    "new JObject { [\"rows\"] = rows }.ToString());\n"
    "Console.WriteLine($\"rows {rows}\");\n";

TEST(test_dotnet_extend__a_package_added_by_a_profile_file)
{
    if (system("command -v dotnet >/dev/null 2>&1") != 0)
        th_skip("no .NET SDK on this host");
    th_timeout(420); /* the snapshot build: the SDK steps and a restore */
    lt t;
    lt_open(&t, "dn-extend");
    write_file(t.dir, "more.json",
               "{\"name\": \"dotnet-json\", \"extends\": \"dotnet\",\n"
               " \"build_steps\": [\"sh /opt/dval-dotnet/packages.sh "
               "Newtonsoft.Json@13.0.4\"]}\n");
    char path[700], src[700], err[512];
    snprintf(path, sizeof path, "%s/more.json", t.dir);
    CHECK_INT(dval_profile_load(path, NULL, err, sizeof err), DVAL_OK);
    snprintf(src, sizeof src, "%s/src", t.dir);
    mkdir(src, 0755);
    write_file(src, "Json.csproj", csproj);
    write_file(src, "Program.cs", program);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "dotnet-json";
    req.source_dir = src;
    req.timeout_ms = 120000;
    json_t *j = lt_validate(&t, &req);
    const char *verdict = json_string_value(json_object_get(j, "verdict"));
    if (strcmp(verdict, "passed"))
        fprintf(stderr, "%s\n", json_dumps(j, JSON_INDENT(1)));
    CHECK_STR(verdict, "passed");
    json_t *r = json_object_get(json_object_get(j, "results"), "results.json");
    CHECK_INT(json_integer_value(json_object_get(r, "rows")), 2);
    json_decref(j);
    lt_close(&t);
}
