/* Upload a program, create a results directory, download what it wrote. */
#include <stdio.h>
#include <dval.h>

static int to_stdout(const char *data, size_t len, void *userdata)
{
    (void)userdata;
    return fwrite(data, 1, len, stdout) != len; /* non-zero stops */
}

static int transfer(dval_sandbox *sb)
{
    static const char prog[] = "echo '{\"ok\":true}' > results/out.json\n";
    char *json, *text;
    size_t len;
    int rc = dval_sandbox_upload(sb, "work/run.sh", prog, sizeof prog - 1);
    if (rc == DVAL_OK)
        rc = dval_sandbox_upload_file(sb, "work/input.txt", "input.txt");
    if (rc == DVAL_OK)
        rc = dval_sandbox_mkdir(sb, "work/results");
    /* ... run work/run.sh in a session ... */
    if (rc == DVAL_OK && (rc = dval_sandbox_download_json(sb,
                              "work/results/out.json", &json)) == DVAL_OK) {
        printf("%s\n", json);
        dval_free(json);
    }
    if (rc == DVAL_OK && (rc = dval_sandbox_download(sb, "work/run.sh", &text,
                                                     &len)) == DVAL_OK) {
        printf("%zu bytes\n", len);
        dval_free(text);
    }
    if (rc == DVAL_OK)
        rc = dval_sandbox_download_to(sb, "work/input.txt", to_stdout, NULL);
    if (rc == DVAL_OK)
        rc = dval_sandbox_download_file(sb, "work/input.txt", "copy.txt");
    if (rc != DVAL_OK)
        fprintf(stderr, "%s\n", dval_sandbox_errmsg(sb));
    return rc;
}

int main(void)
{
    dval_client *client;
    dval_sandbox *sb;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "example-sandbox";
    if (dval_client_new(&client, NULL) != DVAL_OK)
        return 1;
    int rc = dval_sandbox_acquire(&sb, client, &o);
    if (rc == DVAL_OK) {
        rc = transfer(sb);
        dval_sandbox_free(sb);
    }
    dval_client_free(client);
    return rc == DVAL_OK ? 0 : 1;
}
