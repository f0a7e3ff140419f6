/* Validate a program and branch on the verdict alone. */
#include <stdio.h>
#include <string.h>
#include <dval.h>

/* The "verdict" member of the summary, as a value. */
static int verdict_of(const char *summary)
{
    const char *at = summary ? strstr(summary, "\"verdict\":\"") : NULL;
    char word[32] = "";
    if (at)
        sscanf(at + 11, "%31[a-z_]", word);
    return dval_verdict_parse(word);
}

int main(int argc, char **argv)
{
    dval_client *client;
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "java";
    req.source_dir = argc > 1 ? argv[1] : ".";
    char *summary = NULL;
    dval_validate(client, &req, NULL, NULL, &summary);
    int verdict = verdict_of(summary);
    printf("verdict: %s\n", dval_verdict_name(verdict));
    if (verdict == DVAL_VERDICT_INFRASTRUCTURE_ERROR)
        printf("not the program's fault: try again later\n");
    dval_free(summary);
    dval_client_free(client);
    return verdict == DVAL_VERDICT_PASSED ? 0 : 1;
}
