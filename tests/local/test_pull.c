/* Images pulled by reference from a real registry (Debian's
 * docker-registry on 127.0.0.1, tests/local/registry.py): anonymous, with
 * a bearer token, with basic auth; Docker v2 schema 2 and OCI manifests;
 * an index with several platforms (only linux/amd64 is fetched); the
 * cache used offline, by tag and by digest; and a pulled image running a
 * command in a sandbox. Faults (corrupt blobs, 429, cuts, hostile layers,
 * shared layers) are in test_pull_faults.c. */
#include "lt.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *repo(void)
{
    static char here[1024];
    return getcwd(here, sizeof here) ? here : ".";
}

static void run_in(lt *t, const char *snap, const char *sb, const char *cmd,
                   const char *want)
{
    dval_sandbox_options o = { .struct_size = sizeof o, .snapshot = snap };
    lt_sandbox(t, sb, &o);
    lt_out out = { 0 };
    CHECK_INT(lt_run(t, sb, cmd, &out), 0);
    CHECK_STR(out.out.data ? out.out.data : "", want);
    lt_out_free(&out);
}

/* Docker v2 schema 2 (skopeo --format v2s2), no auth: the layers are
 * reported as they come, and the image is a sandbox's root. */
TEST(test_local_pull__anonymous_schema2_runs_in_a_sandbox)
{
    lt_pull_fx f;
    lt_pull_open(&f, "pull-anon");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "");
    lt_pull_push(&f, "v1", "test/mini:v1", "--format v2s2");
    char name[300], cmd[400];
    lt_reg_name(&f.r, "test/mini:v1", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "mini", name), DVAL_OK);
    CHECK_CONTAINS(f.log.data, "layer 2/2");
    CHECK_CONTAINS(f.log.data, "digest verified");
    CHECK_CONTAINS(f.log.data, " MB");
    const char *v2s2[] = { "manifests/v1", "\"status\": 200", NULL };
    CHECK_INT(lt_reg_count(&f.r, v2s2), 1);
    run_in(&f.t, "mini", "m", "cat /hello; test -e /usr || echo no-usr",
           "hello from the registry\nno-usr\n");
    /* docker:// names the same image: nothing is fetched again */
    const char *blobs[] = { "/blobs/", NULL };
    int before = lt_reg_count(&f.r, blobs);
    snprintf(cmd, sizeof cmd, "docker://%s", name);
    CHECK_INT(lt_pull_snapshot(&f, "mini2", cmd), DVAL_OK);
    CHECK_INT(lt_reg_count(&f.r, blobs), before);
    CHECK_CONTAINS(f.log.data, "cached");
    lt_pull_close(&f);
}

/* A registry behind a token service: anonymous tokens, then one that
 * wants credentials, which come from a Docker config file and are never
 * shown. */
TEST(test_local_pull__bearer_token)
{
    lt_pull_fx f;
    char name[300], p[800], auth[200];
    lt_pull_open(&f, "pull-token");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "--token");
    lt_pull_push(&f, "v1", "test/tok:v1", "");
    lt_reg_name(&f.r, "test/tok:v1", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "anon", name), DVAL_OK);
    const char *token[] = { "/token?service=test-registry", NULL };
    const char *bearer[] = { "/blobs/", "\"auth\": \"Bearer\"", NULL };
    CHECK(lt_reg_count(&f.r, token) >= 1);
    CHECK(lt_reg_count(&f.r, bearer) >= 2);
    lt_reg_stop(&f.r);
    lt_pull_registry(&f, "--token tuser:Tok3n-Pw-7731");
    lt_pull_push(&f, "v1", "test/tok:v1", "");
    lt_reg_name(&f.r, "test/tok:v1", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "creds", name), DVAL_EAUTH);
    snprintf(p, sizeof p, "%s/snapshots/creds", f.t.dir);
    CHECK(!lt_exists(p));
    snprintf(p, sizeof p, "%s/auth.json", f.w);
    lt_sh_out("printf %s tuser:Tok3n-Pw-7731 | base64", auth, sizeof auth);
    char cfg[2000];
    snprintf(cfg, sizeof cfg, "printf '{\"auths\":{\"127.0.0.1:%d\":"
             "{\"auth\":\"%s\"}}}' > %s", f.r.proxy, auth, p);
    lt_sh(cfg);
    setenv("DVAL_LOCAL_PULL_AUTH_FILE", p, 1);
    CHECK_INT(lt_pull_snapshot(&f, "creds", name), DVAL_OK);
    unsetenv("DVAL_LOCAL_PULL_AUTH_FILE");
    CHECK(!strstr(f.log.data, "Tok3n-Pw") && !strstr(f.log.data, auth));
    snprintf(cfg, sizeof cfg, "! grep -rqs --exclude-dir=rootfs -e Tok3n-Pw -e '%s' %s/snapshots",
             auth, f.t.dir);
    lt_sh(cfg);
    lt_pull_close(&f);
}

/* The registry itself wants basic auth (htpasswd): refused without
 * credentials (and nothing left), pulled with them ($DOCKER_CONFIG). */
TEST(test_local_pull__basic_auth)
{
    lt_pull_fx f;
    char name[300], cfg[3000], auth[200];
    lt_pull_open(&f, "pull-basic");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "--htpasswd buser:B4sic-Pw-9182");
    lt_pull_push(&f, "v1", "test/basic:v1",
                "--dest-creds buser:B4sic-Pw-9182");
    lt_reg_name(&f.r, "test/basic:v1", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "b", name), DVAL_EAUTH);
    CHECK_CONTAINS(f.t.call.errmsg, "credentials");
    lt_sh_out("printf %s buser:B4sic-Pw-9182 | base64", auth, sizeof auth);
    snprintf(cfg, sizeof cfg, "mkdir -p %s/docker && printf '{\"auths\":"
             "{\"http://127.0.0.1:%d/v2/\":{\"auth\":\"%s\"}}}' > "
             "%s/docker/config.json", f.w, f.r.proxy, auth, f.w);
    lt_sh(cfg);
    snprintf(cfg, sizeof cfg, "%s/docker", f.w);
    setenv("DOCKER_CONFIG", cfg, 1);
    CHECK_INT(lt_pull_snapshot(&f, "b", name), DVAL_OK);
    unsetenv("DOCKER_CONFIG");
    const char *basic[] = { "/blobs/", "\"auth\": \"Basic\"", NULL };
    CHECK(lt_reg_count(&f.r, basic) >= 2);
    CHECK(!strstr(f.t.call.errmsg, "B4sic-Pw") && !strstr(f.log.data, auth));
    lt_pull_close(&f);
}

/* An image index for linux/amd64 and linux/arm64: only the amd64
 * manifest and layer are fetched; an index without amd64 is refused. */
TEST(test_local_pull__index_takes_linux_amd64)
{
    lt_pull_fx f;
    char cmd[2000], arm[200], arml[200], name[300], p[800];
    lt_pull_open(&f, "pull-index");
    snprintf(cmd, sizeof cmd, "set -e; cd %s; mkdir a r; echo amd64 > a/arch;"
             " echo arm64 > r/arch; tar -C a -czf a.tgz .; tar -C r -czf "
             "r.tgz .; P='/usr/bin/python3 %s/tests/local/oci_layout.py'; "
             "$P image l amd a.tgz >/dev/null; $P image l arm "
             "--arch arm64 r.tgz >/dev/null; $P index l multi amd arm "
             ">/dev/null; $P index l armonly arm >/dev/null", f.w,
             repo());
    lt_sh(cmd);
    snprintf(cmd, sizeof cmd, "cd %s && /usr/bin/python3 -c \"import json;"
             "print([m['digest'] for m in json.load(open('l/index.json'))"
             "['manifests'] if m['annotations']['org.opencontainers.image."
             "ref.name']=='arm'][0])\"", f.w);
    lt_sh_out(cmd, arm, sizeof arm);
    snprintf(cmd, sizeof cmd, "cd %s && /usr/bin/python3 %s/tests/local/"
             "oci_layout.py layers l arm", f.w, repo());
    lt_sh_out(cmd, arml, sizeof arml);
    lt_pull_registry(&f, "");
    snprintf(p, sizeof p, "%s/l:multi", f.w);
    lt_reg_push(&f.r, p, "test/multi:v1", "--all");
    snprintf(p, sizeof p, "%s/l:armonly", f.w);
    lt_reg_push(&f.r, p, "test/multi:arm", "--all");
    lt_reg_name(&f.r, "test/multi:v1", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "multi", name), DVAL_OK);
    snprintf(p, sizeof p, "%s/snapshots/multi/rootfs/arch", f.t.dir);
    CHECK_STR(lt_slurp(p), "amd64");
    const char *arm_m[] = { arm, NULL }, *arm_l[] = { arml, NULL };
    CHECK_INT(lt_reg_count(&f.r, arm_m), 0);
    CHECK_INT(lt_reg_count(&f.r, arm_l), 0);
    lt_reg_name(&f.r, "test/multi:arm", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "arm", name), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(f.t.call.errmsg, "linux/amd64");
    lt_pull_close(&f);
}

/* Pulled once, an image is used offline: by its tag (the pin the first
 * pull recorded) and by its digest; a tag never pulled fails clearly. */
TEST(test_local_pull__offline_by_tag_and_digest)
{
    lt_pull_fx f;
    char name[300], byd[400], digest[200], cmd[1200];
    lt_pull_open(&f, "pull-offline");
    lt_pull_mini_image(&f, "v1");
    lt_pull_registry(&f, "");
    lt_pull_push(&f, "v1", "test/off:v1", "");
    lt_reg_name(&f.r, "test/off:v1", name, sizeof name);
    CHECK_INT(lt_pull_snapshot(&f, "on", name), DVAL_OK);
    snprintf(cmd, sizeof cmd, "sed -n 's/^digest=//p' %s/oci/refs/*", f.cache);
    lt_sh_out(cmd, digest, sizeof digest);
    CHECK(strncmp(digest, "sha256:", 7) == 0);
    lt_reg_stop(&f.r); /* the registry is gone */
    CHECK_INT(f.t.ex.snapshot_delete(f.t.ex.userdata, lt_call(&f.t), "on"),
              DVAL_OK);
    CHECK_INT(lt_pull_snapshot(&f, "on", name), DVAL_OK);
    snprintf(byd, sizeof byd, "127.0.0.1:%d/test/off@%s", f.r.proxy, digest);
    CHECK_INT(lt_pull_snapshot(&f, "byd", byd), DVAL_OK);
    run_in(&f.t, "byd", "d", "cat /hello", "hello from the registry\n");
    lt_reg_name(&f.r, "test/off:never", name, sizeof name);
    int64_t t0 = dval__now_ms();
    CHECK_INT(lt_pull_snapshot(&f, "never", name), DVAL_ENETWORK);
    CHECK(dval__now_ms() - t0 < 20000);
    CHECK_CONTAINS(f.t.call.errmsg, "127.0.0.1");
    lt_pull_close(&f);
}

/* Names: the built-in ones stay built-in; malformed references are
 * refused before anything is fetched. */
TEST(test_local_pull__names)
{
    lt t;
    lt_open(&t, "pull-names");
    const char *bad[] = { "127.0.0.1:5000/UPPER/case:v1",
                          "docker://library/x@sha256:1234",
                          "localhost:5000/a//b:v1", "docker://x:bad tag" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(lt_snapshot(&t, "bad", bad[i], NULL, NULL), DVAL_EINVAL);
        CHECK_CONTAINS(t.call.errmsg, "registry reference");
    }
    CHECK_INT(lt_snapshot(&t, "nginx", "nginx:latest", NULL, NULL),
              DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "docker://");
    lt_close(&t);
}
