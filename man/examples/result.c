/* Validate a program and read the outcome without a JSON parser: the
 * verdict, the run's exit code and output, each results file. */
#include <stdio.h>
#include <dval.h>

int main(int argc, char **argv)
{
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = argc > 1 ? argv[1] : ".";
    dval_result *r = NULL;
    int rc = dval_validate_result(&r, client, &req, NULL, NULL);
    if (!r) {
        fprintf(stderr, "%s: %s\n", dval_status_name(rc),
                dval_client_errmsg(client));
        dval_client_free(client);
        return 2;
    }
    printf("verdict: %s (%s)\n", dval_verdict_name(dval_result_verdict(r)),
           dval_result_verdict_detail(r));
    dval_phase_info run;
    if (dval_result_phase(r, "run", &run, sizeof run) == DVAL_OK)
        printf("exit code %d, signal %d, %lld ms, stdout:\n%s",
               (int)run.exit_code, (int)run.signal, (long long)run.wall_ms,
               run.stdout_data);
    for (size_t i = 0; i < dval_result_file_count(r); i++) {
        dval_file_info f;
        if (dval_result_file(r, i, &f, sizeof f) != DVAL_OK)
            continue;
        if (f.is_json)
            printf("%s: %s\n", f.name, f.json);
        else   /* any other file the program wrote there, byte-exact */
            printf("%s: %zu bytes\n", f.name, f.len);
    }
    for (size_t i = 0; i < dval_result_differences(r); i++) {
        dval_diff_entry d;
        if (dval_result_diff(r, i, &d, sizeof d) == DVAL_OK)
            printf("%s: %s, expected %s, got %s\n", d.path, d.kind,
                   d.expected ? d.expected : "nothing",
                   d.actual ? d.actual : "nothing");
    }
    int passed = dval_result_verdict(r) == DVAL_VERDICT_PASSED;
    dval_result_free(r);
    dval_client_free(client);
    return passed ? 0 : 1;
}
