/* The build output parser behind the summary's "diagnostics": each
 * compiler's form gives file (relative to the validation's directory),
 * line, column, severity, code and message; MSBuild's repeated summary is
 * kept once; other lines are skipped. */
#include "harness.h"
#include "diagnostics.h"

#include <string.h>

static json_t *parse(const char *text)
{
    json_t *out = json_array();
    dval__diagnostics_parse(text, strlen(text), "/sandbox/t1", out);
    return out;
}

static void check_one(json_t *d, const char *file, long line, long col,
                      const char *sev, const char *code, const char *msg)
{
    CHECK(d != NULL);
    CHECK_STR(json_string_value(json_object_get(d, "file")), file);
    CHECK_INT(json_integer_value(json_object_get(d, "line")), line);
    CHECK_INT(json_integer_value(json_object_get(d, "column")), col);
    CHECK_STR(json_string_value(json_object_get(d, "severity")), sev);
    if (code)
        CHECK_STR(json_string_value(json_object_get(d, "code")), code);
    else
        CHECK(json_is_null(json_object_get(d, "code")));
    CHECK_STR(json_string_value(json_object_get(d, "message")), msg);
}

TEST(diagnostics__csharp_and_msbuild_once)
{
    json_t *a = parse(
        "/sandbox/t1/Program.cs(5,16): error CS0029: Cannot implicitly "
        "convert type 'int' to 'string' [/sandbox/t1/App.csproj]\n\n"
        "Build FAILED.\n\n"
        "/sandbox/t1/Program.cs(5,16): error CS0029: Cannot implicitly "
        "convert type 'int' to 'string' [/sandbox/t1/App.csproj]\n"
        "/sandbox/t1/sub/M.cs(1,2): warning CS0168: The variable 'x' is "
        "declared but never used [/sandbox/t1/App.csproj]\n"
        "    1 Error(s)\n");
    CHECK_INT(json_array_size(a), 2);
    check_one(json_array_get(a, 0), "Program.cs", 5, 16, "error", "CS0029",
              "Cannot implicitly convert type 'int' to 'string'");
    check_one(json_array_get(a, 1), "sub/M.cs", 1, 2, "warning", "CS0168",
              "The variable 'x' is declared but never used");
    json_decref(a);
}

TEST(diagnostics__nuget_and_msbuild_without_position)
{
    json_t *a = parse("/sandbox/t1/P.csproj : error NU1101: Unable to find "
                      "package X. No packages exist with this id\n"
                      "/usr/share/dotnet/sdk/10.0.401/Sdks/Microsoft.NET.Sdk/"
                      "targets/Microsoft.NET.TargetFrameworkInference.targets"
                      "(184,5): error NETSDK1045: The current .NET SDK does "
                      "not support targeting .NET 11.0. [/sandbox/t1/P.csproj]\n");
    CHECK_INT(json_array_size(a), 2);
    check_one(json_array_get(a, 0), "P.csproj", 0, 0, "error", "NU1101",
              "Unable to find package X. No packages exist with this id");
    CHECK_STR(json_string_value(json_object_get(json_array_get(a, 1),
                                                "code")), "NETSDK1045");
    json_decref(a);
}

TEST(diagnostics__javac_and_maven)
{
    json_t *a = parse("Main.java:6: error: ';' expected\n"
                      "        System.out.println(answer)\n"
                      "                                  ^\n"
                      "app/U.java:3: warning: [removal] Thread.stop\n"
                      "1 error\n"
                      "[ERROR] /sandbox/t1/src/main/java/A.java:[7,9] cannot "
                      "find symbol\n"
                      "[INFO] BUILD FAILURE\n");
    CHECK_INT(json_array_size(a), 3);
    check_one(json_array_get(a, 0), "Main.java", 6, 0, "error", NULL,
              "';' expected");
    check_one(json_array_get(a, 1), "app/U.java", 3, 0, "warning", NULL,
              "[removal] Thread.stop");
    check_one(json_array_get(a, 2), "src/main/java/A.java", 7, 9, "error",
              NULL, "cannot find symbol");
    json_decref(a);
}

TEST(diagnostics__other_lines_and_bad_bytes_skipped)
{
    json_t *a = parse("error: nothing to see\nwarning CS1: no file\n"
                      "x(1,2): error CS1: \xff\xfe bad bytes\n"
                      "Program.cs(a,b): error CS1: not a position\n");
    CHECK_INT(json_array_size(a), 0);
    json_decref(a);
}
